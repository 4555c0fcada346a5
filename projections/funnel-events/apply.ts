import { funnelEventOf } from "../../domain/funnels/derive.ts";
import type { Projection } from "../_runtime/projection.ts";
import { applyDerived } from "../derived-events/apply.ts";
import { RetentionCutoffs } from "../retention/cutoffs.ts";
import { insertFunnelEvents, reassignFunnelEvents, replaceFunnelEvents } from "./write.ts";

/** Rows older than their project's funnel retention are not written (derived-events/plan.ts). */
const cutoffs = new RetentionCutoffs("funnels");

/**
 * The `funnel_events` read model, built from the INGEST stream by its own projector (it lags and
 * replays independently of the events read model). The table is partitioned by user hash, not
 * by month, so only the dedup table takes partitions as facts need them.
 */
export const funnelEventsProjection: Projection = {
  name: "funnel_events",
  stream: "INGEST",
  migrationsDir: new URL("./migrations/", import.meta.url),
  maxBatch: 500,
  apply: (tx, facts) =>
    applyDerived(tx, facts, {
      partitions: { dedup: "funnel_event_dedup" },
      // funnelEventOf reads only messages `step:<step_name>`: batches without one are not decoded.
      derive: { row: funnelEventOf, messagePrefix: "step:" },
      insert: insertFunnelEvents,
      replace: replaceFunnelEvents,
      reassign: reassignFunnelEvents,
      cutoffs,
    }),
};
