import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { and, iso } from "../derived-events/sql.ts";
import type { FunnelScope } from "./analytics-queries.ts";
import type { StepFilter } from "../../domain/funnels/analytics.ts";
import { edgeDays, summaryScope } from "./step-source.ts";
import { MAX_SUMMARIZED_KIND } from "./summary-write.ts";

/**
 * Past this many kinds (step and screen name pairs) for one funnel, the per-row lookups of the
 * summaries cost more than they save: the funnel is counted from its events.
 */
export const MAX_SUMMARY_KINDS = 64;

/** Whether the summaries hold every kind a funnel's steps match (kinds past the cap are left out). */
export const summarized = (kinds: readonly (readonly number[])[]) => {
  const all = kinds.flat();
  return all.length > 0 && new Set(all).size <= MAX_SUMMARY_KINDS && all.every((kind) => kind <= MAX_SUMMARIZED_KIND);
};

const kindRow = z.object({ step_name: z.string(), screen_name: z.string().nullable(), kind: z.number() });

/**
 * The project's kinds each step matches: those with its step name and screen (either, when the
 * filter names one). Read by name, so it needs no keys first and runs beside their lookup.
 */
export async function kindsOfSteps(db: CommonQueryMethods, projectId: string, steps: readonly StepFilter[]): Promise<number[][]> {
  const names = [...new Set(steps.flatMap((step) => [step.step_name, step.screen_name].filter((name) => name !== undefined)))];
  const kinds = await db.any(sql.type(kindRow)`
    select n.name as step_name, c.name as screen_name, k.kind
      from funnel_kinds k join funnel_names n on n.name_key = k.step_key left join funnel_names c on c.name_key = k.screen_key
     where k.project_id = ${projectId} and (n.name = any(${sql.array(names, "text")}) or c.name = any(${sql.array(names, "text")}))`);
  const fits = (want: string | undefined, name: string | null) => want === undefined || want === name;
  return steps.map((step) => kinds.filter((kind) => fits(step.step_name, kind.step_name) && fits(step.screen_name, kind.screen_name)).map((kind) => kind.kind));
}

/**
 * Users with a summary row that straddles an end of the window: it holds events both inside and
 * outside it. Only rows of the window's first and last day can. These users are counted from their
 * events instead. Any straddling row sends its user there, whatever its steps: the lookup so
 * needs no kinds and runs beside theirs.
 */
export async function straddlingUsers(db: CommonQueryMethods, scope: FunnelScope): Promise<number[]> {
  const since = iso(scope.since);
  const until = iso(scope.until);
  const users = await db.anyFirst(sql.type(z.object({ user_key: z.number() }))`
    select distinct e.user_key from funnel_user_days e
     where ${and([
       ...summaryScope(scope),
       sql.fragment`e.day = any(${sql.array(edgeDays(scope), "date")})`,
       sql.fragment`e.last_at >= ${since} and e.first_at <= ${until}`,
       sql.fragment`not (e.first_at >= ${since} and e.last_at <= ${until})`,
     ])}`);
  return [...users];
}
