import type { PartitionNeeds } from "../_runtime/partitions.ts";
import type { FactPart } from "./plan.ts";
import { outOfReach } from "./reach.ts";

/** The events read model's partitioned tables. */
export const EVENT_TABLES = { monthly: "events", dedup: "event_dedup" } as const;

/**
 * The count rollups, partitioned by month like `events`: a minute or hour bucket lies in the
 * month of the events it counts, so a statement needs the same months of them. They are prepared
 * by month only (no dedup days), one parent per call of the runtime's preparePartitions.
 */
export const ROLLUP_TABLES = ["event_totals_minute", "event_totals_hour"] as const;

const monthOf = (iso: string) => iso.slice(0, 7);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The partitions the events of `parts` are written into: their months, and, when one of them is
 * to be remembered in `event_dedup` (reach.ts), every receipt day of `parts` (all of them, so a
 * statement never misses a day whatever it remembers).
 */
export function partitionNeeds(parts: Iterable<FactPart>): PartitionNeeds {
  const months = new Set<string>();
  const receiptDays = new Set<string>();
  let remembers = false;
  let maxReceivedMs = 0;
  for (const part of parts) {
    const receivedMs = Date.parse(part.fact.received_at);
    maxReceivedMs = Math.max(maxReceivedMs, receivedMs);
    receiptDays.add(dayOf(receivedMs));
    const beyondReach = outOfReach(receivedMs);
    for (const event of part.events) {
      months.add(monthOf(event.timestamp));
      remembers ||= beyondReach(event);
    }
  }
  return { months, dedupDays: remembers ? receiptDays : new Set(), maxReceivedMs };
}
