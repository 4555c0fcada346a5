/**
 * A progress line on stderr: redrawn in place on a terminal, a line per tenth of the way (or per
 * minute when the total is unknown) otherwise, so logs of a scripted run stay short.
 */
export class ProgressLine {
  #lastReported = -1;
  #lastAt = 0;
  readonly #started = performance.now();

  constructor(
    private readonly label: string,
    private readonly total: number | null,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number): void {
    const fraction = this.total ? Math.min(1, done / this.total) : null;
    if (this.stream.isTTY) {
      this.stream.write(`\r${this.#render(done, fraction)}`);
      return;
    }
    const step = fraction === null ? Math.floor((performance.now() - this.#started) / 60_000) : Math.floor(fraction * 10);
    if (step === this.#lastReported) return;
    this.#lastReported = step;
    this.stream.write(`${this.#render(done, fraction)}\n`);
  }

  /** Ends the line (on a terminal) and returns the seconds elapsed. */
  finish(done: number): number {
    if (this.stream.isTTY) this.stream.write(`\r${this.#render(done, this.total ? 1 : null)}\n`);
    this.#lastAt = performance.now();
    return (this.#lastAt - this.#started) / 1000;
  }

  #render(done: number, fraction: number | null): string {
    const count = done.toLocaleString("en-US");
    if (fraction === null) return `${this.label}: ${count} events`;
    const width = 30;
    const filled = Math.round(fraction * width);
    return `${this.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.round(fraction * 100)}% ${count}/${this.total!.toLocaleString("en-US")} events`;
  }
}
