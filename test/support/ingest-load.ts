import { randomUUID } from "node:crypto";

/**
 * Steady ingest through several API instances for fault tests: lanes post batches of events with
 * unique client_event_ids to the instances in turn, each request with a hard deadline, and record
 * every outcome. A batch that is not answered 200 is sent again with the same ids, as an SDK
 * does, so a fact that landed before its answer was lost must still be stored only once.
 */

export type Instance = { name: string; url: string; retiredAt?: number };

export type IngestOutcome = {
  instance: string;
  status: number;
  /** Why a request got no answer (status 0): a timeout, a reset connection. */
  error?: string;
  /** No answer because the instance was killed while the request was in flight (a load balancer's 502). */
  cut: boolean;
  ms: number;
  startedAt: number;
  endedAt: number;
};

export type IngestLoadOptions = { lanes: number; perBatch: number; pauseMs: number; requestBoundMs: number; maxAttempts: number };

const DEFAULTS: IngestLoadOptions = { lanes: 2, perBatch: 20, pauseMs: 100, requestBoundMs: 15_000, maxAttempts: 30 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class IngestLoad {
  readonly outcomes: IngestOutcome[] = [];
  /** The client_event_ids of every batch answered 200. */
  readonly acknowledged: string[] = [];
  /** Every client_event_id sent, answered or not. */
  readonly sent = new Set<string>();
  readonly options: IngestLoadOptions;
  #next = 0;
  #stopped = false;
  #lanes: Promise<void>[] = [];

  constructor(
    private readonly instances: Instance[],
    private readonly clientKey: string,
    private readonly bundleId: string,
    options: Partial<IngestLoadOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  start(): void {
    this.#lanes = Array.from({ length: this.options.lanes }, (_, lane) => this.#lane(lane));
  }

  /** Ends the lanes after their requests in flight (and a batch's resends) are answered. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#lanes);
  }

  /** Takes `name` out of the rotation before it is killed: requests still in flight to it are cut. */
  retire(name: string): void {
    const instance = this.instances.find((candidate) => candidate.name === name);
    if (!instance) throw new Error(`no instance ${name}`);
    instance.retiredAt = Date.now();
  }

  /** Batches answered 200 whose request started after `at`. */
  acknowledgedSince(at: number): number {
    return this.outcomes.filter((outcome) => outcome.status === 200 && outcome.startedAt > at).length;
  }

  /** Outcomes other than 2xx, 429, 503 or a request cut by its instance's kill: a 500, a 4xx, a hang, a refused connection. */
  unexpected(): IngestOutcome[] {
    return this.outcomes.filter((outcome) => !(outcome.status >= 200 && outcome.status < 300) && outcome.status !== 429 && outcome.status !== 503 && !outcome.cut);
  }

  summary(): string {
    const by = new Map<string, number>();
    for (const outcome of this.outcomes) {
      const key = outcome.cut ? "cut" : String(outcome.status);
      by.set(key, (by.get(key) ?? 0) + 1);
    }
    const counts = [...by].sort().map(([status, n]) => `${status}: ${n}`).join(", ");
    const slowest = Math.max(0, ...this.outcomes.map((outcome) => outcome.ms));
    return `${this.outcomes.length} requests (${counts}), ${this.acknowledged.length} events acknowledged, slowest ${slowest} ms`;
  }

  /** One batch, sent again (same ids) until it is answered 200 or the load stops. */
  async #lane(lane: number): Promise<void> {
    while (!this.#stopped) {
      const ids = Array.from({ length: this.options.perBatch }, () => randomUUID());
      for (const id of ids) this.sent.add(id);
      const body = JSON.stringify({
        bundle_id: this.bundleId,
        events: ids.map((id, index) => ({ message: `lane ${lane} event ${index}`, level: "info", session_id: randomUUID(), client_event_id: id, environment: "ios" })),
      });
      for (let attempt = 1; attempt <= this.options.maxAttempts; attempt += 1) {
        const outcome = await this.#post(body);
        if (outcome.status === 200) {
          this.acknowledged.push(...ids);
          break;
        }
        if (this.#stopped) break;
        await sleep(outcome.status === 429 ? 1_000 : 200);
      }
      await sleep(this.options.pauseMs);
    }
  }

  async #post(body: string): Promise<IngestOutcome> {
    const live = this.instances.filter((instance) => instance.retiredAt === undefined);
    if (live.length === 0) throw new Error("no API instance left");
    const instance = live[this.#next++ % live.length]!;
    const startedAt = Date.now();
    let outcome: IngestOutcome;
    try {
      const response = await fetch(`${instance.url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.clientKey}` },
        body,
        signal: AbortSignal.timeout(this.options.requestBoundMs),
      });
      await response.arrayBuffer();
      outcome = { instance: instance.name, status: response.status, cut: false, ms: Date.now() - startedAt, startedAt, endedAt: Date.now() };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      // Only a request that was in flight when its instance was taken out and killed may end without an answer.
      const cut = !timedOut && instance.retiredAt !== undefined;
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
      outcome = { instance: instance.name, status: 0, error: `${String(error)}${cause}`, cut, ms: Date.now() - startedAt, startedAt, endedAt: Date.now() };
    }
    this.outcomes.push(outcome);
    return outcome;
  }
}
