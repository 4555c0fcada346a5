import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import { recordKeyUses } from "../../../projections/directory/key-usage-queries.ts";

const FLUSH_MS = 5_000;

/**
 * `last_used_at` is telemetry, not a domain fact: uses are collected in memory and written in one
 * upsert every few seconds instead of a write per request.
 */
export class KeyUsage {
  #pending = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: DatabasePool,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), FLUSH_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  touch(keyId: string): void {
    this.#pending.set(keyId, new Date().toISOString());
  }

  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const rows = [...this.#pending].map(([key_id, last_used_at]) => ({ key_id, last_used_at }));
    this.#pending = new Map();
    try {
      await recordKeyUses(this.pool, rows);
    } catch (error) {
      this.logger.warn({ err: error }, "could not record api key usage");
      for (const row of rows) if (!this.#pending.has(row.key_id)) this.#pending.set(row.key_id, row.last_used_at);
    }
  }
}
