import { sql, type DatabaseTransactionConnection } from "slonik";
import { adsEvents, type AdsFact } from "../../domain/ads/events.ts";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { eventTypeGuard } from "../../domain/shared/event-types.ts";
import type { Projection } from "../_runtime/projection.ts";
import { jsonRows } from "../_runtime/sql.ts";
import { subjectKindOf } from "../_runtime/subjects.ts";

/**
 * Ad network facts travel on `<ns>.d.ads.<project>` (README.md). This read model sees every
 * DOMAIN fact; the subject tells the others apart without decoding them.
 */
const isAdsSubject = (subject: string): boolean => subjectKindOf(subject) === "ads";

const isAdsFact = eventTypeGuard(adsEvents);

async function applyFact(tx: DatabaseTransactionConnection, fact: AdsFact): Promise<void> {
  switch (fact.type) {
    case "AdEntitiesSynced":
      await tx.query(sql.unsafe`
        insert into ad_entities (project_id, level, id, campaign_id, ad_group_id, name, status, start_date, spend, sync_id)
        select ${fact.project_id}, ${fact.level}, r.id, r.campaign_id, r.ad_group_id, r.name, r.status, r.start_date, r.spend, ${fact.sync_id}
          from jsonb_to_recordset(${jsonRows(fact.entities)}) as r(
            id text, campaign_id text, ad_group_id text, name text, status text, start_date date, spend numeric)
        on conflict (project_id, level, id) do update set
          campaign_id = excluded.campaign_id, ad_group_id = excluded.ad_group_id, name = excluded.name, status = excluded.status,
          start_date = excluded.start_date, spend = excluded.spend, sync_id = excluded.sync_id`);
      return;
    case "AdMetricsSynced":
      await tx.query(sql.unsafe`delete from ad_entities where project_id = ${fact.project_id} and sync_id <> ${fact.sync_id}`);
      await tx.query(sql.unsafe`
        insert into ad_accounts (project_id, team_id, currency, synced_at, sync_id, period_start, period_end)
        values (${fact.project_id}, ${fact.team_id}, ${fact.currency}, ${fact.synced_at}, ${fact.sync_id}, ${fact.period_start}, ${fact.period_end})
        on conflict (project_id) do update set
          team_id = excluded.team_id, currency = excluded.currency, synced_at = excluded.synced_at, sync_id = excluded.sync_id,
          period_start = excluded.period_start, period_end = excluded.period_end`);
      return;
    default: {
      const unhandled: never = fact;
      throw new Error(`ads cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

/** The `ads` read model, from the DOMAIN stream: each project's pulled ad entities and account (README.md). */
export const adsProjection: Projection = {
  name: "ads",
  stream: "DOMAIN",
  migrationsDir: new URL("./migrations/", import.meta.url),
  // A fact carries up to a thousand entities.
  maxBatch: 200,
  apply: async (tx, facts) => {
    for (const fact of facts) {
      if (!isAdsSubject(fact.subject)) continue;
      for (const event of decodeDomainEnvelope(fact.data).events) if (isAdsFact(event)) await applyFact(tx, event);
    }
  },
};
