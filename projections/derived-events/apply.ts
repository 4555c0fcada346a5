import type { DatabaseTransactionConnection } from "slonik";
import type { Fact } from "../_runtime/projection.ts";
import type { Reassignment } from "../_runtime/reassign.ts";
import { preparePartitions, type PartitionedTables } from "../_runtime/partitions.ts";
import type { RetentionCutoffs } from "../retention/cutoffs.ts";
import { planDerived, type Derivation, type DerivedRow, type ImportKey } from "./plan.ts";

/** Rows per statement: a round trip is amortized, the JSON parameter stays a few MB. */
const ROWS_PER_STATEMENT = 5_000;

/** A read model of rows derived from ingested events: how a row is derived, where and how it is written. */
export type DerivedModel<R extends DerivedRow> = {
  partitions: PartitionedTables;
  derive: Derivation<R>;
  insert: (tx: DatabaseTransactionConnection, rows: readonly R[]) => Promise<void>;
  replace: (tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly R[]) => Promise<void>;
  /** Moves the rows of the claim's anonymous id to the claiming user. */
  reassign: (tx: DatabaseTransactionConnection, claim: Reassignment) => Promise<unknown>;
  /** Where the read model's retention starts per project: older rows are not written. */
  cutoffs: RetentionCutoffs;
};

/**
 * Applies a projector batch to a derived read model: facts of other types are skipped, claims
 * move rows to the claiming user, and every step runs in stream order. Rows past their project's
 * retention are not written, so a replay brings no expired row back.
 */
export async function applyDerived<R extends DerivedRow>(tx: DatabaseTransactionConnection, facts: readonly Fact[], model: DerivedModel<R>): Promise<void> {
  // Planning sends nothing, so the retention lookups have the connection to themselves.
  const cutoffs = model.cutoffs.forBatch(Date.now(), (read) => read(tx));
  const plan = await planDerived(facts, model.derive, ROWS_PER_STATEMENT, cutoffs);
  await preparePartitions(tx, model.partitions, plan);
  for (const step of plan.steps) {
    if (step.kind === "insert") await model.insert(tx, step.rows);
    else if (step.kind === "replace") await model.replace(tx, step.keys, step.rows);
    else await model.reassign(tx, step.claim);
  }
}
