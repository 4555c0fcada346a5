import { funnelEventOf } from "../../domain/funnels/derive.ts";
import type { Projection } from "../_runtime/projection.ts";
import { reassignUser } from "../app-users/reassign.ts";
import { ensureDedupDays } from "../derived-events/partitions.ts";
import { planDerived } from "../derived-events/plan.ts";
import { insertFunnelEvents, replaceFunnelEvents } from "./write.ts";

const ROWS_PER_STATEMENT = 5_000;

/**
 * The `funnel_events` read model, built from the INGEST stream by its own projector (it lags and
 * replays independently of the events read model). Facts of other types are skipped, claims move
 * rows to the claiming user.
 */
export const funnelEventsProjection: Projection = {
  name: "funnel_events",
  stream: "INGEST",
  migrationsDir: new URL("./migrations/", import.meta.url),
  maxBatch: 500,
  apply: async (tx, facts) => {
    const plan = planDerived(facts, funnelEventOf, ROWS_PER_STATEMENT);
    if (plan.dedupDays.size > 0) await ensureDedupDays(tx, "funnel_event_dedup", plan.dedupDays, plan.maxReceivedMs);
    for (const step of plan.steps) {
      if (step.kind === "insert") await insertFunnelEvents(tx, step.rows);
      else if (step.kind === "replace") await replaceFunnelEvents(tx, step.keys, step.rows);
      else await reassignUser(tx, "funnel_events", step.claim);
    }
  },
};
