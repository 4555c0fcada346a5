import type { UserClaimed } from "../../domain/identity/events.ts";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";
import { LoopTurns } from "../_runtime/loop-turns.ts";
import type { Fact } from "../_runtime/projection.ts";
import { isExpired, type BatchCutoffs } from "../retention/cutoffs.ts";
import { decodeForPrefix, messageNeedle } from "./decode.ts";

/** What every derived row (metric event, funnel event) carries for dedup, import and partitions. */
export type DerivedRow = { id: string; app_id: string; client_event_id: string | null; timestamp: string; received_at: string };

export type ImportKey = { app_id: string; client_event_id: string };

/**
 * One statement's worth of work, applied in stream order:
 * - `insert`: ingested rows; a row whose (app_id, client_event_id) was kept in the 48 hours before
 *   its receipt is a duplicate and skipped (checked against the table by the statement, and
 *   against earlier rows of the same step here, because a statement does not see its own rows);
 * - `replace`: imported events; rows derived from an event with any of `keys` are removed and
 *   `rows` written, keeping the removed row's id (an import updates an event in place);
 * - `claim`: an anonymous user id was claimed; rows move to the claiming user.
 */
export type Step<R> = { kind: "insert"; rows: R[] } | { kind: "replace"; keys: ImportKey[]; rows: R[] } | { kind: "claim"; claim: UserClaimed };

/** The steps, and what they need of partitions (a PartitionNeeds). */
export type Plan<R> = {
  steps: Step<R>[];
  /** Months (`YYYY-MM`) of the timestamps of rows about to be written. */
  months: Set<string>;
  /** Days (`YYYY-MM-DD`) of receipt of facts with rows that have a client_event_id (dedup partitions). */
  dedupDays: Set<string>;
  maxReceivedMs: number;
};

export const monthOf = (iso: string) => iso.slice(0, 7);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The derived row an ingested event stands for, or null when it stands for none. */
export type Derive<R> = (batch: EventsIngested, event: IngestedEvent) => R | null;

/** How rows are derived: `row` returns null for every event whose message does not start with `messagePrefix`. */
export type Derivation<R> = { row: Derive<R>; messagePrefix: string };

/**
 * Turns a projector batch into statements. Facts of types this read model does not use
 * (identity properties, types added later) are skipped. A step holds whole facts and is closed
 * once it reaches `maxRows` rows, so memory stays flat; later steps see the earlier ones' writes.
 * An event past its project's retention (`cutoffs`) derives no row, as if its message derived
 * none: an ingested one is left out, an imported one still removes the row it updates.
 */
export async function planDerived<R extends DerivedRow>(facts: readonly Fact[], derivation: Derivation<R>, maxRows: number, cutoffs?: BatchCutoffs): Promise<Plan<R>> {
  const turns = new LoopTurns();
  const plan: Plan<R> = { steps: [], months: new Set(), dedupDays: new Set(), maxReceivedMs: 0 };
  const needle = messageNeedle(derivation.messagePrefix);
  let open: OpenStep<R> | undefined;
  const close = () => {
    if (open) plan.steps.push(open.finish());
    open = undefined;
  };
  for (const fact of facts) {
    await turns.after(fact.data.length);
    const decoded = decodeForPrefix(fact.data, needle);
    if (decoded.kind === "identity") {
      if (decoded.fact.type !== "UserClaimed") continue;
      close();
      plan.steps.push({ kind: "claim", claim: decoded.fact });
      continue;
    }
    if (decoded.kind !== "events") continue;
    const batch = decoded.fact;
    const kind = batch.mode === "import" ? "replace" : "insert";
    if (open && (open.kind !== kind || open.size >= maxRows)) close();
    open ??= kind === "insert" ? new InsertStep<R>() : new ReplaceStep<R>();
    const receivedMs = Date.parse(batch.received_at);
    plan.maxReceivedMs = Math.max(plan.maxReceivedMs, receivedMs);
    // A batch with no event of the prefix comes back without events (decode.ts): no lookup for it.
    const since = batch.events.length > 0 && cutoffs ? await cutoffs.resolve(batch.project_id) : null;
    let keyed = false;
    for (const event of batch.events) {
      const derived = derivation.row(batch, event);
      const row = derived !== null && isExpired(derived.timestamp, since) ? null : derived;
      if (!open.add(batch.app_id, event, row, receivedMs)) {
        // A repeat the database must judge after the rows before it: a new statement.
        close();
        open = new InsertStep<R>();
        open.add(batch.app_id, event, row, receivedMs);
      }
      if (row) {
        plan.months.add(monthOf(row.timestamp));
        keyed ||= row.client_event_id !== null;
      }
    }
    if (keyed) plan.dedupDays.add(dayOf(receivedMs));
  }
  close();
  return plan;
}

interface OpenStep<R> {
  readonly kind: "insert" | "replace";
  readonly size: number;
  /** False when the event must go into a new step (only an insert step says so). */
  add(appId: string, event: IngestedEvent, row: R | null, receivedMs: number): boolean;
  finish(): Step<R>;
}

class InsertStep<R extends DerivedRow> implements OpenStep<R> {
  readonly kind = "insert";
  readonly #rows: R[] = [];
  readonly #kept = new Map<string, number>();

  get size() {
    return this.#rows.length;
  }

  /**
   * A statement does not see its own rows, so a repeated key is decided here as the database would
   * decide it row by row (see planChunks in projections/events/plan.ts): a repeat received no
   * later than the row already in the step is a duplicate whether that row is kept or itself a
   * duplicate; one received later within the window may not be, and goes into a new step, which
   * sees this step's rows. A repeat beyond the window cannot be a duplicate of this step's row,
   * so the statement judges it against the table alone.
   */
  add(appId: string, event: IngestedEvent, row: R | null, receivedMs: number): boolean {
    if (!row) return true;
    if (event.client_event_id !== null) {
      const key = `${appId}/${event.client_event_id}`;
      const earlier = this.#kept.get(key);
      if (earlier !== undefined && receivedMs <= earlier) return true;
      if (earlier !== undefined && receivedMs - earlier <= DEDUP_WINDOW_MS) return false;
      this.#kept.set(key, receivedMs);
    }
    this.#rows.push(row);
    return true;
  }

  finish(): Step<R> {
    return { kind: "insert", rows: this.#rows };
  }
}

/**
 * Imports update by (app_id, client_event_id), last write wins. A key repeated in the step keeps
 * the row of its last event under the id of its first: the first inserted the event, the later
 * ones updated it in place. Events without a client_event_id are always new rows.
 */
class ReplaceStep<R extends DerivedRow> implements OpenStep<R> {
  readonly kind = "replace";
  readonly #unkeyed: R[] = [];
  readonly #keyed = new Map<string, { key: ImportKey; firstId: string; row: R | null }>();

  get size() {
    return this.#unkeyed.length + this.#keyed.size;
  }

  add(appId: string, event: IngestedEvent, row: R | null, _receivedMs: number): boolean {
    if (event.client_event_id === null) {
      if (row) this.#unkeyed.push(row);
      return true;
    }
    const id = `${appId}/${event.client_event_id}`;
    const entry = this.#keyed.get(id);
    if (entry) entry.row = row;
    else this.#keyed.set(id, { key: { app_id: appId, client_event_id: event.client_event_id }, firstId: event.id, row });
    return true;
  }

  finish(): Step<R> {
    const rows = [...this.#unkeyed];
    for (const { firstId, row } of this.#keyed.values()) if (row) rows.push({ ...row, id: firstId });
    return { kind: "replace", keys: [...this.#keyed.values()].map((entry) => entry.key), rows };
  }
}
