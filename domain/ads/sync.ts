import type { AdEntity, AdLevel, AdsFact } from "./events.ts";
import { AD_LEVELS } from "./events.ts";

/** Entities per fact: a keyword entity is about 200 bytes, so a message stays far below the 1 MiB NATS limit. */
export const ENTITIES_PER_FACT = 1_000;
/** The ads window (SPEC): revenue counts users first seen in the last 360 days, and spend is pulled over the same days. */
export const ADS_WINDOW_DAYS = 360;

export type AdsPull = {
  projectId: string;
  teamId: string;
  syncId: string;
  syncedAt: string;
  currency: string;
  period: { startTime: string; endTime: string };
  entities: Record<AdLevel, readonly AdEntity[]>;
};

/**
 * The facts of one completed pull, one per message: every level's entities in chunks, then the
 * closing `AdMetricsSynced`. An entity reported twice (a report page overlapping the next) is kept
 * once, its last report winning, so the counts are of distinct entities.
 */
export function adsSyncFacts(pull: AdsPull): AdsFact[] {
  const facts: AdsFact[] = [];
  const counts = {} as Record<AdLevel, number>;
  for (const level of AD_LEVELS) {
    const distinct = [...new Map(pull.entities[level].map((entity) => [entity.id, entity])).values()];
    counts[level] = distinct.length;
    for (let start = 0; start < distinct.length; start += ENTITIES_PER_FACT) {
      facts.push({ type: "AdEntitiesSynced", v: 1, project_id: pull.projectId, sync_id: pull.syncId, level, entities: distinct.slice(start, start + ENTITIES_PER_FACT) });
    }
  }
  facts.push({
    type: "AdMetricsSynced",
    v: 1,
    project_id: pull.projectId,
    team_id: pull.teamId,
    sync_id: pull.syncId,
    synced_at: pull.syncedAt,
    currency: pull.currency,
    period_start: pull.period.startTime,
    period_end: pull.period.endTime,
    counts,
  });
  return facts;
}

/** The report period ending on `now`'s UTC day: ADS_WINDOW_DAYS days, both ends included. */
export function adsPeriod(now: Date): { startTime: string; endTime: string } {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = end - (ADS_WINDOW_DAYS - 1) * 86_400_000;
  return { startTime: new Date(start).toISOString().slice(0, 10), endTime: new Date(end).toISOString().slice(0, 10) };
}
