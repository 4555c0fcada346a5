import type { DatabasePool } from "slonik";
import { analyticsRows } from "../derived-events/sql.ts";
import { countsQuery, phaseCountRow } from "./aggregate-queries.ts";
import type { MetricScope } from "./scope.ts";

export type OutcomeCounts = { complete: number; fail: number };

/** Complete and fail events per metric slug of `slugs` in the scope's window (from the hourly counts). */
export async function outcomesBySlug(pool: DatabasePool, scope: MetricScope, slugs: readonly string[]): Promise<Map<string, OutcomeCounts>> {
  const outcomes = new Map<string, OutcomeCounts>(slugs.map((slug) => [slug, { complete: 0, fail: 0 }]));
  if (slugs.length === 0 || scope.appIds.length === 0) return outcomes;
  for (const row of await analyticsRows(pool, countsQuery(scope, slugs, {}, "slug"), phaseCountRow)) {
    const counts = outcomes.get(row.value ?? "");
    if (!counts) continue;
    if (row.phase === "complete") counts.complete += row.events;
    if (row.phase === "fail") counts.fail += row.events;
  }
  return outcomes;
}
