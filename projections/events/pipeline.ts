import { sql, type DatabaseTransactionConnection, type QuerySqlToken } from "slonik";
import { preparePartitions, type PartitionNeeds } from "../_runtime/partitions.ts";
import { EVENT_TABLES, ROLLUP_TABLES } from "./partitions.ts";

/** A write statement, built and ready to send, and the partitions its rows go into. */
export type Statement = { query: QuerySqlToken; needs: PartitionNeeds };

/**
 * Sends the write statements of one projector transaction in order, one at a time on its
 * connection, and lets the caller prepare the next statement (decode facts, plan, build the
 * parameters: CPU in this process) while Postgres executes the current one, instead of each
 * waiting for the other. Only a single query is ever left running in the background: anything
 * that needs a reply before the next query (the partition catalog) is awaited by `send`, since a
 * follow-up query would otherwise wait for the caller's synchronous work to end. A failure
 * surfaces at the next `send` or at `drain`, which the caller awaits before it uses the connection
 * otherwise and before the transaction commits.
 */
export class StatementPipeline {
  #inFlight: Promise<unknown>;
  /** Partitions already prepared in this transaction: one catalog read per transaction, not per statement. */
  readonly #prepared = new Set<string>();

  constructor(private readonly tx: DatabaseTransactionConnection) {
    // Runs while the caller decodes the first facts.
    this.#inFlight = inBackground(writeSettings(tx));
  }

  async send({ query, needs }: Statement): Promise<void> {
    await this.#inFlight;
    const wanted = [...[...needs.months].map((month) => `m${month}`), ...[...needs.dedupDays].map((day) => `d${day}`)];
    if (wanted.some((key) => !this.#prepared.has(key))) {
      await preparePartitions(this.tx, EVENT_TABLES, needs);
      if (needs.months.size > 0) {
        const months = { months: needs.months, dedupDays: new Set<string>(), maxReceivedMs: 0 };
        for (const monthly of ROLLUP_TABLES) await preparePartitions(this.tx, { monthly, dedup: EVENT_TABLES.dedup }, months);
      }
      for (const key of wanted) this.#prepared.add(key);
    }
    this.#inFlight = inBackground(this.tx.query(query));
    // The query is written to the socket by promise callbacks; let them run before the caller
    // goes back to synchronous work.
    await new Promise((resolve) => setImmediate(resolve));
  }

  async drain(): Promise<void> {
    await this.#inFlight;
  }

  /** Runs a read on the transaction once the statement in flight has finished: the connection runs one query at a time. */
  async read<T>(work: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T> {
    await this.#inFlight;
    return work(this.tx);
  }
}

/** `work`, whose failure is reported where it is awaited, not as an unhandled rejection meanwhile. */
function inBackground<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/**
 * Settings of the writing transaction, sent in one round trip (the runtime already made its commit
 * one that does not wait for the WAL flush, projections/_runtime/apply-batch.ts):
 * - No bitmap scans: the statements look rows up one key at a time (a dedup probe per event, an
 *   import's stored events), and without statistics on fresh partitions the planner chose bitmap
 *   scans, which build a bitmap per probe; the dedup probe then runs as an index-only scan.
 *   Measured on the 2-core machine, 5,000 events into 500,000: 5-10% less CPU per statement.
 * - No JIT: the planner's estimate for a 5,000-row insert sits near jit_above_cost, and with
 *   another index layout it crossed it: ~750 ms per statement instead of ~350, mostly compiling.
 */
async function writeSettings(tx: DatabaseTransactionConnection): Promise<void> {
  await tx.query(sql.unsafe`
    select set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)`);
}
