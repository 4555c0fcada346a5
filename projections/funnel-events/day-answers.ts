import { LRUCache } from "lru-cache";
import { sql, type CommonQueryMethods, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import type { TimeWindow } from "../../domain/analytics/window.ts";
import { analyticsRows } from "../derived-events/sql.ts";
import type { Reader } from "../derived-events/snapshot.ts";
import { countsRow } from "./analytics-queries.ts";
import { dayOf } from "./step-source.ts";

type CountsRow = z.infer<typeof countsRow>;

const DAY_MS = 86_400_000;

/** The UTC days strictly between the window's first and last day: every summary row of theirs lies inside it. */
export function innerDays(window: TimeWindow): string[] {
  const days: string[] = [];
  const last = Date.parse(`${dayOf(window.until)}T00:00:00Z`);
  for (let day = Date.parse(`${dayOf(window.since)}T00:00:00Z`) + DAY_MS; day < last; day += DAY_MS) days.push(dayOf(new Date(day)));
  return days;
}

/** The version of each of `days` that has one (migration 005): the transaction that last changed its summaries. */
export async function dayVersions(db: CommonQueryMethods, projectId: string, days: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.any(sql.type(z.object({ day: z.string(), version: z.string() }))`
    select to_char(day, 'YYYY-MM-DD') as day, version::text as version from funnel_day_versions
     where project_id = ${projectId} and day = any(${sql.array(days, "date")})`);
  return new Map(rows.map((row) => [row.day, row.version]));
}

/** A day without summaries has no version row; its answer (nothing) holds until one appears. */
const NO_VERSION = "none";

/**
 * Answers of funnel counts queries over one day's rows alone in their project, kept per query and
 * day at the day's version. Past days rarely change, so a funnel asked again (a reload, another
 * user, a dashboard's refresh) reads only the rows of its window's two edge days, of the users
 * with several rows, and of days changed since. A day's answer is only used at the version it
 * was computed at, read in the same snapshot as the rest of the answer, so it is never stale.
 * Bounded by the rows kept; the least recently used go first.
 */
export class FunnelDayAnswers {
  readonly #answers = new LRUCache<string, { version: string; rows: CountsRow[] }>({
    maxSize: 200_000,
    sizeCalculation: (answer) => answer.rows.length + 1,
  });

  /**
   * The rows of `query(days)` for each of `days`, from this cache where the day's version matches,
   * read in `reader` otherwise, all missing days in one statement. `query(days)` labels each row
   * with its day and depends on nothing of the window but the days: its text for a day that
   * cannot occur names the answers.
   */
  async rowsOf(reader: Reader, days: readonly string[], versions: ReadonlyMap<string, string>, query: (days: readonly string[]) => FragmentSqlToken): Promise<CountsRow[]> {
    const template = query(["0001-01-01"]);
    const name = JSON.stringify([template.sql, template.values]);
    const version = (day: string) => versions.get(day) ?? NO_VERSION;
    const rows: CountsRow[] = [];
    const missing: string[] = [];
    for (const day of days) {
      const kept = this.#answers.get(`${name}|${day}`);
      if (kept !== undefined && kept.version === version(day)) rows.push(...kept.rows);
      else missing.push(day);
    }
    if (missing.length === 0) return rows;
    const read = await analyticsRows(reader, query(missing), countsRow);
    const byDay = new Map<string, CountsRow[]>(missing.map((day) => [day, []]));
    for (const row of read) byDay.get(row.day ?? "")?.push(row);
    for (const [day, answer] of byDay) this.#answers.set(`${name}|${day}`, { version: version(day), rows: answer });
    return [...rows, ...read];
  }
}
