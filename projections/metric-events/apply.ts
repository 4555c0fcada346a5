import { metricEventOf } from "../../domain/metrics/derive.ts";
import type { Projection } from "../_runtime/projection.ts";
import { reassignUser } from "../_runtime/reassign.ts";
import { applyDerived } from "../derived-events/apply.ts";
import { RetentionCutoffs } from "../retention/cutoffs.ts";
import { insertMetricEvents, replaceMetricEvents } from "./write.ts";

/** Rows older than their project's metric retention are not written (derived-events/plan.ts). */
const cutoffs = new RetentionCutoffs("metrics");

/**
 * The `metric_events` read model, built from the INGEST stream by its own projector: it lags and
 * replays independently of the events read model and never delays an ingest answer.
 */
export const metricEventsProjection: Projection = {
  name: "metric_events",
  stream: "INGEST",
  migrationsDir: new URL("./migrations/", import.meta.url),
  // An ingest fact holds up to 100 events, of which few are metric events: parsing dominates.
  maxBatch: 500,
  apply: (tx, facts) =>
    applyDerived(tx, facts, {
      partitions: { monthly: "metric_events", dedup: "metric_event_dedup" },
      // metricEventOf reads only messages `metric:<slug>:<phase>`: batches without one are not decoded.
      derive: { row: metricEventOf, messagePrefix: "metric:" },
      insert: insertMetricEvents,
      replace: replaceMetricEvents,
      reassign: (tx, claim) => reassignUser(tx, "metric_events", claim),
      cutoffs,
    }),
};
