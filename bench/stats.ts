/** Latency samples in milliseconds and the figures the benchmark prints. */
export class Samples {
  #values: number[] = [];

  add(ms: number): void {
    this.#values.push(ms);
  }

  get count(): number {
    return this.#values.length;
  }

  /** The q-quantile (0..1) by nearest rank; NaN when empty. */
  quantile(q: number): number {
    if (this.#values.length === 0) return Number.NaN;
    const sorted = [...this.#values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  }

  summary() {
    return { count: this.count, p50_ms: round(this.quantile(0.5)), p95_ms: round(this.quantile(0.95)), p99_ms: round(this.quantile(0.99)) };
  }
}

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Times one async call in milliseconds. */
export async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await call();
  return { ms: performance.now() - started, value };
}
