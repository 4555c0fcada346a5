import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Dedup days are kept one day past the window, a margin for API clocks that differ. */
const DEDUP_RETENTION_MS = DEDUP_WINDOW_MS + DAY_MS;

function nextMonth(month: string): string {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  return mon === 12 ? `${year + 1}-01` : `${year}-${String(mon + 1).padStart(2, "0")}`;
}

async function partitionsOf(tx: DatabaseTransactionConnection, parent: string): Promise<Set<string>> {
  return new Set(
    await tx.anyFirst(sql.type(z.object({ name: z.string() }))`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent = ${parent}::regclass`),
  );
}

/**
 * Creates the monthly partitions (`<parent>_pYYYYMM`, by the event's timestamp) that `months`
 * need. Runs in the batch transaction with the generation schema first on the search path, so a
 * replay builds its own. Created apart and then attached: ATTACH takes a lock that lets queries
 * on the parent go on, where CREATE ... PARTITION OF would block them until commit.
 */
export async function ensureMonthPartitions(tx: DatabaseTransactionConnection, parent: string, months: Iterable<string>): Promise<void> {
  let existing: Set<string> | undefined;
  for (const month of months) {
    existing ??= await partitionsOf(tx, parent);
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

/**
 * Creates the daily partitions (`<parent>_dYYYYMMDD`, by receipt) of a dedup table that `days`
 * need, and drops the days no receipt at or after `maxReceivedMs` can be a duplicate of any more.
 */
export async function ensureDedupDays(tx: DatabaseTransactionConnection, parent: string, days: Iterable<string>, maxReceivedMs: number): Promise<void> {
  const existing = await partitionsOf(tx, parent);
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
