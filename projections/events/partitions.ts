import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";
import type { FactPart } from "./plan.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Dedup partitions are kept one day longer than the window, a margin for API clocks that differ. */
const DEDUP_RETENTION_MS = DEDUP_WINDOW_MS + DAY_MS;

export type PartitionNeeds = {
  /** Months (`YYYY-MM`) of event timestamps about to be written. */
  months: Set<string>;
  /** Days (`YYYY-MM-DD`) of receipt times about to be written into the dedup table. */
  days: Set<string>;
  /** Latest receipt time in the batch: dedup days older than the window before it are dropped. */
  maxReceivedMs: number;
};

const monthOf = (iso: string) => iso.slice(0, 7);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The partitions the events of `parts` are written into. */
export function partitionNeeds(parts: Iterable<FactPart>): PartitionNeeds {
  const months = new Set<string>();
  const days = new Set<string>();
  let maxReceivedMs = 0;
  for (const part of parts) {
    const receivedMs = Date.parse(part.fact.received_at);
    maxReceivedMs = Math.max(maxReceivedMs, receivedMs);
    days.add(dayOf(receivedMs));
    for (const event of part.events) months.add(monthOf(event.timestamp));
  }
  return { months, days, maxReceivedMs };
}

const eventsPartition = (month: string) => `events_p${month.replace("-", "")}`;
const dedupPartition = (day: string) => `event_dedup_d${day.replaceAll("-", "")}`;

function nextMonth(month: string): string {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  return mon === 12 ? `${year + 1}-01` : `${year}-${String(mon + 1).padStart(2, "0")}`;
}

/**
 * Creates the monthly event partitions and daily dedup partitions the batch needs and drops dedup
 * days that can no longer match. Runs inside the batch transaction, in the generation schema the
 * runtime put first on the search path, so a replay builds its own partitions.
 */
export async function preparePartitions(tx: DatabaseTransactionConnection, needs: PartitionNeeds): Promise<void> {
  const existing = new Set(
    await tx.anyFirst(sql.type(z.object({ name: z.string() }))`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent in ('events'::regclass, 'event_dedup'::regclass)`),
  );
  for (const month of needs.months) {
    const name = eventsPartition(month);
    if (existing.has(name)) continue;
    // Created apart and attached: ATTACH PARTITION takes only a SHARE UPDATE EXCLUSIVE lock on the
    // parent, so queries reading events are not blocked while this transaction runs
    // (CREATE TABLE ... PARTITION OF would lock them out until commit).
    await tx.query(sql.unsafe`create table ${sql.identifier([name])} (like events including defaults including constraints)`);
    await tx.query(sql.unsafe`
      alter table events attach partition ${sql.identifier([name])}
        for values from (${sql.literalValue(`${month}-01T00:00:00Z`)}) to (${sql.literalValue(`${nextMonth(month)}-01T00:00:00Z`)})`);
  }
  for (const day of needs.days) {
    const name = dedupPartition(day);
    if (existing.has(name)) continue;
    // Bounds are literals: utility statements take no bind parameters.
    const start = Date.parse(`${day}T00:00:00Z`);
    await tx.query(sql.unsafe`
      create table ${sql.identifier([name])} partition of event_dedup
        for values from (${sql.literalValue(new Date(start).toISOString())}) to (${sql.literalValue(new Date(start + DAY_MS).toISOString())})`);
  }
  const forgetBefore = needs.maxReceivedMs - DEDUP_RETENTION_MS;
  for (const name of existing) {
    const day = /^event_dedup_d(\d{4})(\d{2})(\d{2})$/.exec(name);
    if (!day) continue;
    const end = Date.parse(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`) + DAY_MS;
    if (end <= forgetBefore) await tx.query(sql.unsafe`drop table ${sql.identifier([name])}`);
  }
}
