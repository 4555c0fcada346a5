import { metricEventOf } from "../../domain/metrics/derive.ts";
import type { Projection } from "../_runtime/projection.ts";
import { reassignUser } from "../app-users/reassign.ts";
import { ensureDedupDays, ensureMonthPartitions } from "../derived-events/partitions.ts";
import { planDerived } from "../derived-events/plan.ts";
import { insertMetricEvents, replaceMetricEvents } from "./write.ts";

/** Rows per statement: a round trip is amortized, the JSON parameter stays a few MB. */
const ROWS_PER_STATEMENT = 5_000;

/**
 * The `metric_events` read model, built from the INGEST stream by its own projector: it lags and
 * replays independently of the events read model and never delays an ingest answer. Facts of
 * other types are skipped, claims move rows to the claiming user.
 */
export const metricEventsProjection: Projection = {
  name: "metric_events",
  stream: "INGEST",
  migrationsDir: new URL("./migrations/", import.meta.url),
  // An ingest fact holds up to 100 events, of which few are metric events: parsing dominates.
  maxBatch: 500,
  apply: async (tx, facts) => {
    const plan = planDerived(facts, metricEventOf, ROWS_PER_STATEMENT);
    await ensureMonthPartitions(tx, "metric_events", plan.months);
    if (plan.dedupDays.size > 0) await ensureDedupDays(tx, "metric_event_dedup", plan.dedupDays, plan.maxReceivedMs);
    for (const step of plan.steps) {
      if (step.kind === "insert") await insertMetricEvents(tx, step.rows);
      else if (step.kind === "replace") await replaceMetricEvents(tx, step.keys, step.rows);
      else await reassignUser(tx, "metric_events", step.claim);
    }
  },
};
