import { sql, type DatabasePool, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { generationSchema } from "../projections/_runtime/projection.ts";
import { preparePartitions } from "../projections/_runtime/partitions.ts";
import { monthOf } from "../projections/derived-events/plan.ts";
import { insertFunnelEvents } from "../projections/funnel-events/write.ts";
import { insertMetricEvents } from "../projections/metric-events/write.ts";
import { seededRandom } from "../test/support/seeded-random.ts";
import { funnelUsers, metricDay, type Target } from "./analytics-data.ts";
import { call } from "./fleet.ts";
import { measureQuery } from "./queries.ts";
import { round } from "./stats.ts";

const DAY_MS = 86_400_000;
const ROWS_PER_STATEMENT = 5_000;
const STEPS = ["open", "browse", "cart", "pay", "done"];

export type AnalyticsBenchInput = {
  baseUrl: string;
  /** A slonik pool on the service's database (`openPool(databaseUrl)` from projections/_runtime/database.ts). */
  pool: DatabasePool;
  project: { id: string };
  app: { id: string };
  /** A user session or agent key that may write and read metric and funnel definitions. */
  token: string;
  metricEvents?: number;
  funnelUsers?: number;
  days?: number;
  requests?: number;
  log?: (line: string) => void;
};

export type AnalyticsFigures = {
  metric_events: number;
  funnel_users: number;
  funnel_events: number;
  load_seconds: { metric_events: number; funnel_events: number };
  metric_query_day_groups: QueryFigures;
  metric_query_app_version: QueryFigures;
  metric_stats: QueryFigures;
  metric_completions_count: QueryFigures;
  funnel_query_open: QueryFigures;
  funnel_query_closed: QueryFigures;
  funnel_query_by_environment: QueryFigures;
  /**
   * Each funnel query's first answer, before the API keeps any day's answer (day-answers.ts): what
   * a funnel asked for the first time costs. The p95 figures are of the answers after it.
   */
  funnel_first_answer_ms: { open: number; closed: number; by_environment: number };
};

type QueryFigures = Awaited<ReturnType<typeof measureQuery>>;

/** One of the four app versions metricDay spreads the events over: a quarter of them. */
const FILTERED_VERSION = "3.2.0";

/** The schema of the active generation of `projection`. */
async function activeSchema(pool: DatabasePool, projection: string): Promise<string> {
  const generation = await pool.oneFirst(sql.type(z.object({ g: z.number() }))`
    select active_generation as g from projection_generations where projection = ${projection}`);
  return generationSchema(projection, generation);
}

/**
 * Runs `write` in a transaction on the active generation of `projection`, as the projector
 * does (the runtime puts the generation schema first on the search path).
 */
async function inGeneration(pool: DatabasePool, projection: string, write: (tx: DatabaseTransactionConnection) => Promise<void>): Promise<void> {
  const schema = await activeSchema(pool, projection);
  await pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`select set_config('search_path', ${`${schema}, public`}, true)`);
    await write(tx);
  });
}

/** Runs `tasks` with at most `width` at a time. */
async function inParallel(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) await tasks[next++]!();
  }));
}

/**
 * Loads metric events straight into the read model through the projector's own write path
 * (insertMetricEvents: same rows, same hourly counts), bypassing NATS: 2 million events through
 * the stream would also fill the events read model and take minutes. Two writers take whole days,
 * so they never update the same hourly count row.
 */
async function loadMetrics(input: AnalyticsBenchInput, target: Target, slug: string, total: number, days: number): Promise<void> {
  // Whole UTC days inside the window, the last one ending at today's midnight: a query over the
  // last `days` days covers every event.
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const fullDays = days - 1;
  const firstDay = today - fullDays * DAY_MS;
  const perDay = Math.ceil(total / fullDays);
  const months = new Set(Array.from({ length: fullDays }, (_, d) => monthOf(new Date(firstDay + d * DAY_MS).toISOString())));
  // The rows carry no client_event_id: they need no dedup partitions.
  await inGeneration(input.pool, "metric_events", (tx) =>
    preparePartitions(tx, { monthly: "metric_events", dedup: "metric_event_dedup" }, { months, dedupDays: new Set(), maxReceivedMs: 0 }),
  );
  const tasks = Array.from({ length: fullDays }, (_, d) => async () => {
    const random = seededRandom(1_000 + d);
    const count = Math.min(perDay, total - d * perDay);
    if (count <= 0) return;
    const rows = metricDay(target, slug, firstDay + d * DAY_MS, count, Math.round(total / 20), random);
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      await inGeneration(input.pool, "metric_events", (tx) => insertMetricEvents(tx, rows.slice(start, start + ROWS_PER_STATEMENT)));
    }
  });
  await inParallel(tasks, 2);
}

async function loadFunnel(input: AnalyticsBenchInput, target: Target, users: number, days: number): Promise<number> {
  const now = Date.now();
  const windowStart = now - (days - 1) * DAY_MS;
  const random = seededRandom(77);
  const rows = funnelUsers(target, STEPS, 0, users, windowStart, (days - 2) * DAY_MS, random);
  const chunks = Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, (_, i) => rows.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));
  // One writer, as the projector is: it numbers new users and names, and two writers would race for the same ones.
  for (const chunk of chunks) await inGeneration(input.pool, "funnel_events", (tx) => insertFunnelEvents(tx, chunk));
  return rows.length;
}

/**
 * Statistics and the visibility map, as autovacuum keeps them on tables that fill over days: the
 * events, and the per-user step summaries funnel queries read (without statistics the planner
 * cannot tell how few rows are grouped by user).
 */
async function settle(pool: DatabasePool): Promise<void> {
  for (const [projection, table] of [["metric_events", "metric_events"], ["funnel_events", "funnel_events"], ["funnel_events", "funnel_user_days"]] as const) {
    await pool.query(sql.unsafe`vacuum (analyze) ${sql.identifier([await activeSchema(pool, projection), table])}`);
  }
}

/**
 * The analytics benchmark: loads `metricEvents` (2 million) metric events of one metric over the
 * last `days` (30) days and a 5-step funnel walked by `funnelUsers` (200,000) users into one
 * project, then times, over the 30 days and with sequential requests as a dashboard makes them: the
 * metric query grouped by day (alone and filtered to one app version), the project's metric stats,
 * its completion counts, and the funnel query (open, closed, and broken down by environment).
 */
export async function runAnalyticsBench(input: AnalyticsBenchInput): Promise<AnalyticsFigures> {
  const log = input.log ?? (() => undefined);
  const metricEvents = input.metricEvents ?? 2_000_000;
  const users = input.funnelUsers ?? 200_000;
  const days = input.days ?? 30;
  const requests = input.requests ?? 60;
  const target: Target = { projectId: input.project.id, appId: input.app.id, apiKeyId: "00000000-0000-4000-8000-00000000be4c" };
  const slug = `bench-checkout-${Date.now().toString(36)}`;
  const funnelSlug = `bench-funnel-${Date.now().toString(36)}`;
  await call(input.baseUrl, "POST", `/v1/projects/${input.project.id}/metrics`, { name: "Bench checkout", slug }, input.token);
  const steps = STEPS.map((name) => ({ name, event_filter: { step_name: name } }));
  await call(input.baseUrl, "POST", `/v1/projects/${input.project.id}/funnels`, { name: "Bench funnel", slug: funnelSlug, steps }, input.token);

  let started = performance.now();
  await loadMetrics(input, target, slug, metricEvents, days);
  const metricSeconds = (performance.now() - started) / 1000;
  log(`analytics: loaded ${metricEvents} metric events in ${round(metricSeconds)} s`);
  started = performance.now();
  const funnelEvents = await loadFunnel(input, target, users, days);
  const funnelSeconds = (performance.now() - started) / 1000;
  log(`analytics: loaded ${funnelEvents} funnel events of ${users} users in ${round(funnelSeconds)} s`);
  await settle(input.pool);

  const base = `/v1/projects/${input.project.id}`;
  const paths = {
    metric: () => `${base}/metrics/${slug}/query?since=${days}d&group_by=time:day`,
    metricVersion: () => `${base}/metrics/${slug}/query?since=${days}d&group_by=time:day&app_version=${FILTERED_VERSION}`,
    stats: () => `${base}/metric-stats?since=${days}d`,
    completions: () => `/v1/metrics/completions/count?project_id=${input.project.id}&since=${days}d`,
    open: () => `${base}/funnels/${funnelSlug}/query?since=${days}d`,
    closed: () => `${base}/funnels/${funnelSlug}/query?since=${days}d&mode=closed`,
    byEnvironment: () => `${base}/funnels/${funnelSlug}/query?since=${days}d&group_by=environment`,
  };
  const first = async (path: () => string) => (await measureQuery(input.baseUrl, [input.token], path, 1)).p50_ms;
  const firstAnswers = { open: await first(paths.open), closed: await first(paths.closed), by_environment: await first(paths.byEnvironment) };
  log(`analytics: first funnel answers: open ${firstAnswers.open} ms, closed ${firstAnswers.closed} ms, by environment ${firstAnswers.by_environment} ms`);
  for (const path of Object.values(paths)) await measureQuery(input.baseUrl, [input.token], path, 3);
  const time = (path: () => string) => measureQuery(input.baseUrl, [input.token], path, requests);
  const metric = await time(paths.metric);
  const metricVersion = await time(paths.metricVersion);
  log(`analytics: metric query (group_by=time:day, ${days} days): p50 ${metric.p50_ms} ms, p95 ${metric.p95_ms} ms; with app_version=${FILTERED_VERSION}: p95 ${metricVersion.p95_ms} ms`);
  const stats = await time(paths.stats);
  const completions = await time(paths.completions);
  log(`analytics: metric stats p95 ${stats.p95_ms} ms, completion counts p95 ${completions.p95_ms} ms`);
  const open = await time(paths.open);
  const closed = await time(paths.closed);
  const byEnvironment = await time(paths.byEnvironment);
  log(`analytics: funnel query (5 steps, ${users} users): open p95 ${open.p95_ms} ms, closed p95 ${closed.p95_ms} ms, by environment p95 ${byEnvironment.p95_ms} ms`);
  return {
    metric_events: metricEvents,
    funnel_users: users,
    funnel_events: funnelEvents,
    load_seconds: { metric_events: round(metricSeconds), funnel_events: round(funnelSeconds) },
    metric_query_day_groups: metric,
    metric_query_app_version: metricVersion,
    metric_stats: stats,
    metric_completions_count: completions,
    funnel_query_open: open,
    funnel_query_closed: closed,
    funnel_query_by_environment: byEnvironment,
    funnel_first_answer_ms: firstAnswers,
  };
}
