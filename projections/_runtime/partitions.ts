import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Dedup days are kept one day past the window, a margin for API clocks that differ. */
const DEDUP_RETENTION_MS = DEDUP_WINDOW_MS + DAY_MS;

/** What a batch is about to write. */
export type PartitionNeeds = {
  /** Months (`YYYY-MM`) of the timestamps of rows about to be written. */
  months: ReadonlySet<string>;
  /** Days (`YYYY-MM-DD`) of receipt of rows with a client_event_id (dedup partitions). */
  dedupDays: ReadonlySet<string>;
  maxReceivedMs: number;
};

/** The partitioned tables of an event read model: `monthly` when it is partitioned by month of the timestamp. */
export type PartitionedTables = { monthly?: string; dedup: string };

function nextMonth(month: string): string {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  return mon === 12 ? `${year + 1}-01` : `${year}-${String(mon + 1).padStart(2, "0")}`;
}

/**
 * Creates the partitions a batch needs, with one catalog read for both tables: monthly ones
 * (`<monthly>_pYYYYMM`, by the event's timestamp) and daily dedup ones (`<dedup>_dYYYYMMDD`, by
 * receipt), and drops the dedup days no receipt at or after `maxReceivedMs` can be a duplicate of
 * any more (whenever the catalog is read). Runs in the batch transaction with the generation
 * schema first on the search path, so a replay builds its own.
 */
export async function preparePartitions(tx: DatabaseTransactionConnection, tables: PartitionedTables, needs: PartitionNeeds): Promise<void> {
  const monthly = tables.monthly !== undefined && needs.months.size > 0 ? tables.monthly : undefined;
  // Read along with the months whenever the catalog is read anyway, so expired days are dropped
  // even while nothing new goes into the dedup table (the events read model writes it rarely).
  const dedup = needs.dedupDays.size > 0 || (monthly !== undefined && needs.maxReceivedMs > 0) ? tables.dedup : undefined;
  const parents = [monthly, dedup].filter((parent) => parent !== undefined);
  if (parents.length === 0) return;
  const existing = new Set(
    await tx.anyFirst(sql.type(z.object({ name: z.string() }))`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent = any(${sql.array(parents, "text")}::regclass[])`),
  );
  if (monthly !== undefined) await createMonths(tx, monthly, needs.months, existing);
  if (dedup !== undefined) await createDedupDays(tx, dedup, needs.dedupDays, needs.maxReceivedMs, existing);
}

/**
 * Created apart and then attached: ATTACH takes a lock that lets queries on the parent go on,
 * where CREATE ... PARTITION OF would block them until commit.
 */
async function createMonths(tx: DatabaseTransactionConnection, parent: string, months: Iterable<string>, existing: Set<string>): Promise<void> {
  for (const month of months) {
    const name = `${parent}_p${month.replace("-", "")}`;
    if (existing.has(name)) continue;
    await tx.query(sql.unsafe`
      create table ${sql.identifier([name])} (like ${sql.identifier([parent])} including defaults including constraints including generated)`);
    // Bounds are literals: utility statements take no bind parameters.
    await tx.query(sql.unsafe`
      alter table ${sql.identifier([parent])} attach partition ${sql.identifier([name])}
        for values from (${sql.literalValue(`${month}-01T00:00:00Z`)}) to (${sql.literalValue(`${nextMonth(month)}-01T00:00:00Z`)})`);
    existing.add(name);
  }
}

async function createDedupDays(tx: DatabaseTransactionConnection, parent: string, days: Iterable<string>, maxReceivedMs: number, existing: Set<string>): Promise<void> {
  for (const day of days) {
    const name = `${parent}_d${day.replaceAll("-", "")}`;
    if (existing.has(name)) continue;
    const start = Date.parse(`${day}T00:00:00Z`);
    await tx.query(sql.unsafe`
      create table ${sql.identifier([name])} partition of ${sql.identifier([parent])}
        for values from (${sql.literalValue(new Date(start).toISOString())}) to (${sql.literalValue(new Date(start + DAY_MS).toISOString())})`);
    existing.add(name);
  }
  const forgetBefore = maxReceivedMs - DEDUP_RETENTION_MS;
  const pattern = new RegExp(`^${parent}_d(\\d{4})(\\d{2})(\\d{2})$`);
  for (const name of existing) {
    const day = pattern.exec(name);
    if (!day) continue;
    const end = Date.parse(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`) + DAY_MS;
    if (end <= forgetBefore) await tx.query(sql.unsafe`drop table ${sql.identifier([name])}`);
  }
}
