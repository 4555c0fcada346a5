import { readFile } from "node:fs/promises";
import pg from "pg";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { buildAggregation, type Aggregation, type MetricGroupBy, type PhaseCount } from "../../domain/metrics/aggregation.ts";
import { METRIC_PHASES, type MetricEventRow } from "../../domain/metrics/derive.ts";
import { DIGEST_RELATIVE_ERROR } from "../../domain/metrics/duration-digest.ts";
import { migrate, migrateSchema } from "../_runtime/migrate.ts";
import { preparePartitions } from "../_runtime/partitions.ts";
import { monthOf, type ImportKey } from "../derived-events/plan.ts";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { seededRandom } from "../../test/support/seeded-random.ts";
import { aggregateMetric } from "./aggregate.ts";
import { metricEventsProjection } from "./apply.ts";
import type { MetricFilters, MetricScope } from "./scope.ts";
import { insertMetricEvents, replaceMetricEvents } from "./write.ts";

/**
 * Answers from the rollups (whole days and hours) and the events (partial hours) against answers
 * computed here from the rows themselves, after inserts and an import that replaces and removes
 * events; and the rollups a different batching (a replay) writes.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PROJECT = "7a000000-0000-4000-8000-000000000001";
const APPS = ["7a000000-0000-4000-8000-0000000000a1", "7a000000-0000-4000-8000-0000000000a2"];
const SLUG = "checkout";
const DIMENSION_ROLLUPS = ["metric_dim_hourly", "metric_dim_error_hourly", "metric_duration_hourly", "metric_duration_daily"];
const ROLLUPS = ["metric_hourly", "metric_error_hourly", "metric_dim_hourly", "metric_dim_error_hourly", "metric_duration_hourly", "metric_duration_daily"];

const start = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
/** Partial hours at both ends, two whole days in between. */
const scope: MetricScope = { projectId: PROJECT, appIds: APPS, dataMode: "production", since: new Date(start + 5 * HOUR + 1_023_000), until: new Date(start + 3 * DAY - 7 * HOUR - 2_345_000) };

const uuid = (n: number) => `7a000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** Events of one metric over three days, with every dimension (some missing) and durations from 0 to minutes. */
function events(count: number, seed: number, idFrom: number): MetricEventRow[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const ms = start + random.int(3 * DAY);
    const phase = random.pick(METRIC_PHASES);
    const roll = random.next();
    return {
      id: uuid(idFrom + i),
      project_id: PROJECT,
      app_id: random.pick(APPS),
      client_event_id: uuid(0x100000 + idFrom + i),
      session_id: uuid(0x200000 + idFrom + i),
      user_id: random.next() < 0.1 ? null : `u${random.int(400)}`,
      api_key_id: uuid(0x300000),
      metric_slug: SLUG,
      phase,
      tracking_id: null,
      duration_ms: roll < 0.3 ? null : roll < 0.32 ? 0 : Math.round(Math.exp(random.next() * 12) * 1000) / 1000,
      error: phase === "fail" && random.next() < 0.9 ? random.pick(["timeout", "network", "declined"]) : null,
      attributes: {},
      environment: random.pick(["ios", "ipados"]),
      os_version: random.pick(["17.5", "18.0", null]),
      app_version: random.next() < 0.15 ? null : random.pick(["1.0", "1.1", "2.0"]),
      device_model: random.pick(["iPhone15,2", "iPad14,1"]),
      build_number: null,
      is_dev: random.next() < 0.1,
      timestamp: new Date(ms).toISOString(),
      received_at: new Date(ms + 2_000).toISOString(),
    };
  });
}

const inserted = events(4_000, 11, 1);
// An import: 300 events updated in place (new fields, durations, phases), 100 removed.
const replacedKeys: ImportKey[] = inserted.slice(0, 400).map((row) => ({ app_id: row.app_id, client_event_id: row.client_event_id! }));
const replacements = events(300, 12, 0x10000).map((row, i) => ({ ...row, app_id: inserted[i]!.app_id, client_event_id: inserted[i]!.client_event_id }));
const finalRows = [...inserted.slice(400), ...replacements];

const database = scratchDatabase("metricrollups", 4);
const databaseUrl = database.url;
let pool: DatabasePool;

/** A new generation schema of the read model, migrated. */
async function generation(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await migrateSchema(client, metricEventsProjection, schema);
  } finally {
    await client.end();
  }
}

const rowsOf = (schema: string, table: string, where = sql.fragment`true`) =>
  pool.anyFirst(sql.type(z.object({ row: z.string() }))`select to_jsonb(t)::text as row from ${sql.identifier([schema, table])} t where ${where} order by 1`);

/** Writes the events into `schema` in `chunk`-row batches, then the import, as the projector would. */
async function writeAll(schema: string, chunk: number): Promise<void> {
  const all = [...inserted, ...replacements];
  const months = new Set(all.map((row) => monthOf(row.timestamp)));
  const dedupDays = new Set(all.map((row) => row.received_at.slice(0, 10)));
  const maxReceivedMs = Math.max(...all.map((row) => Date.parse(row.received_at)));
  const inSchema = (work: (tx: Parameters<Parameters<DatabasePool["transaction"]>[0]>[0]) => Promise<void>) =>
    pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`select set_config('search_path', ${`${schema}, public`}, true)`);
      await work(tx);
    });
  await inSchema((tx) => preparePartitions(tx, { monthly: "metric_events", dedup: "metric_event_dedup" }, { months, dedupDays, maxReceivedMs }));
  for (let from = 0; from < inserted.length; from += chunk) await inSchema((tx) => insertMetricEvents(tx, inserted.slice(from, from + chunk)));
  await inSchema((tx) => replaceMetricEvents(tx, replacedKeys, replacements));
}

beforeAll(async () => {
  await migrate(databaseUrl, [metricEventsProjection]);
  pool = database.pool();
  await writeAll("rm_metric_events_g1", 1_000);
  await pool.query(sql.unsafe`analyze`);
}, 60_000);


const FIELDS: Record<string, keyof MetricEventRow> = { app_version: "app_version", device_model: "device_model", os_version: "os_version", environment: "environment", app_id: "app_id" };

/** The truncation of a timestamp to the UTC hour, day or ISO week, as ISO 8601. */
function bucket(timestamp: string, unit: string): string {
  const ms = Date.parse(timestamp);
  if (unit === "hour") return new Date(Math.floor(ms / HOUR) * HOUR).toISOString();
  const day = Math.floor(ms / DAY) * DAY;
  if (unit === "day") return new Date(day).toISOString();
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day - weekday * DAY).toISOString();
}

/** percentile_cont over exact values. */
function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  const rank = fraction * (sorted.length - 1);
  const low = Math.floor(rank);
  return sorted[low]! + (rank - low) * (sorted[Math.ceil(rank)]! - sorted[low]!);
}

/** The aggregation computed from the rows alone. */
function expected(filters: MetricFilters, groupBy: MetricGroupBy | undefined): Aggregation {
  const rows = finalRows.filter(
    (row) =>
      !row.is_dev &&
      Date.parse(row.timestamp) >= scope.since.getTime() &&
      Date.parse(row.timestamp) <= scope.until.getTime() &&
      (filters.appVersion === undefined || row.app_version === filters.appVersion) &&
      (filters.deviceModel === undefined || row.device_model === filters.deviceModel) &&
      (filters.osVersion === undefined || row.os_version === filters.osVersion) &&
      (filters.environment === undefined || row.environment === filters.environment),
  );
  const counts = new Map<string, PhaseCount>();
  const errors = new Map<string, number>();
  for (const row of rows) {
    const value = groupBy === undefined ? null : groupBy.startsWith("time:") ? bucket(row.timestamp, groupBy.slice(5)) : (row[FIELDS[groupBy]!] as string | null);
    const key = `${value}|${row.phase}`;
    const count = counts.get(key) ?? { value, phase: row.phase, events: 0, durations: 0, duration_sum: 0 };
    count.events += 1;
    if (row.duration_ms !== null) {
      count.durations += 1;
      count.duration_sum += row.duration_ms;
    }
    counts.set(key, count);
    if (row.phase === "fail" && row.error !== null) errors.set(row.error, (errors.get(row.error) ?? 0) + 1);
  }
  const durations = rows.flatMap((row) => (row.duration_ms === null ? [] : [row.duration_ms])).sort((a, b) => a - b);
  const topErrors = [...errors].map(([error, count]) => ({ error, count })).sort((a, b) => b.count - a.count || (a.error < b.error ? -1 : 1));
  const users = new Set(rows.flatMap((row) => (row.user_id === null ? [] : [row.user_id]))).size;
  const [p50, p95, p99] = [0.5, 0.95, 0.99].map((fraction) => percentile(durations, fraction));
  return buildAggregation([...counts.values()], topErrors, { unique_users: users, p50: p50!, p95: p95!, p99: p99!, sample_rate: 1 }, groupBy);
}

/**
 * Counts, groups and errors exactly; percentiles within the digest's bound (and the answer's
 * rounding); `sample_rate` below 1 exactly when estimated.
 */
function expectClose(actual: Aggregation, wanted: Aggregation, estimated: boolean): void {
  const { duration_p50_ms, duration_p95_ms, duration_p99_ms, unique_users, sample_rate, ...counts } = actual;
  const { duration_p50_ms: p50, duration_p95_ms: p95, duration_p99_ms: p99, unique_users: _users, sample_rate: _rate, ...wantedCounts } = wanted;
  expect(counts).toEqual(wantedCounts);
  for (const [got, want] of [[duration_p50_ms, p50], [duration_p95_ms, p95], [duration_p99_ms, p99]] as const) {
    expect(Math.abs(got! - want!)).toBeLessThanOrEqual(DIGEST_RELATIVE_ERROR * want! + 0.01);
  }
  // Users are the sample's estimate (sampling.test.ts), exact otherwise.
  expect(sample_rate < 1).toBe(estimated);
  if (!estimated) expect(unique_users).toBe(wanted.unique_users);
}

const CASES: [MetricFilters, MetricGroupBy | undefined][] = [
  [{}, undefined],
  [{}, "time:day"],
  [{}, "time:hour"],
  [{}, "time:week"],
  [{}, "app_id"],
  [{}, "app_version"],
  [{}, "device_model"],
  [{}, "os_version"],
  [{ appVersion: "2.0" }, undefined],
  [{ appVersion: "1.1" }, "time:day"],
  [{ appVersion: "1.0" }, "app_version"],
  [{ deviceModel: "iPad14,1" }, "app_id"],
  [{ osVersion: "18.0" }, "time:hour"],
  [{ environment: "ios" }, "environment"],
  // Two dimensions at once read the events.
  [{ environment: "ios" }, "app_version"],
  [{ appVersion: "2.0", osVersion: "17.5" }, undefined],
];

/** Estimates on: every case above its exact limit, with any sample trusted. */
const ESTIMATING = { exactLimit: 100, scanLimit: 1_000_000, minSampledUsers: 0 };

describe("metric rollups", () => {
  it.each(CASES)("answers %j grouped by %s from rollups as the rows do", async (filters, groupBy) => {
    // One dimension at most has rollups; two are read from the events, exactly.
    const estimated = Object.keys(filters).length <= 1;
    expectClose(await aggregateMetric(pool, scope, SLUG, filters, groupBy, ESTIMATING), expected(filters, groupBy), estimated);
  });

  it("says when it estimates: one dimension at most; two, or a user, read every event exactly", async () => {
    expect((await aggregateMetric(pool, scope, SLUG, { appVersion: "2.0" }, "time:day", ESTIMATING)).sample_rate).toBeLessThan(1);
    // Counts of a filter and a grouping by another dimension come from the events; users and percentiles still from one dimension.
    expect((await aggregateMetric(pool, scope, SLUG, { environment: "ios" }, "app_version", ESTIMATING)).sample_rate).toBeLessThan(1);
    const twoDimensions = { appVersion: "2.0", osVersion: "17.5" };
    expect(await aggregateMetric(pool, scope, SLUG, twoDimensions, "time:day", ESTIMATING)).toEqual(expected(twoDimensions, "time:day"));
    expect(await aggregateMetric(pool, scope, SLUG, { userId: "u7" }, undefined, ESTIMATING)).toMatchObject({ sample_rate: 1 });
  });

  it("answers exactly below the exact limit, percentiles and users included", async () => {
    for (const [filters, groupBy] of CASES.slice(0, 10)) {
      expect(await aggregateMetric(pool, scope, SLUG, filters, groupBy)).toEqual(expected(filters, groupBy));
    }
  });

  it("rebuilds identical rollups from the same events in other batches (a replay)", async () => {
    await generation("rm_metric_events_g2");
    await writeAll("rm_metric_events_g2", 333);
    for (const table of ROLLUPS) {
      const replayed = await rowsOf("rm_metric_events_g2", table);
      expect(replayed.length).toBeGreaterThan(0);
      expect(replayed).toEqual(await rowsOf("rm_metric_events_g1", table));
    }
  });

  it("backfills from stored events (the 002 migration) what the writes built, imports included", async () => {
    // A generation holding the final events without their rollups, as one migrated before 002 holds them.
    await generation("rm_metric_events_g3");
    const months = new Set(finalRows.map((row) => monthOf(row.timestamp)));
    await pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`select set_config('search_path', 'rm_metric_events_g3, public', true)`);
      await preparePartitions(tx, { monthly: "metric_events", dedup: "metric_event_dedup" }, { months, dedupDays: new Set(), maxReceivedMs: 0 });
      const columns = sql.join(
        ["id", "project_id", "app_id", "client_event_id", "session_id", "user_id", "api_key_id", "metric_slug", "phase", "tracking_id", "duration_ms", "error", "attributes", "environment", "os_version", "app_version", "device_model", "build_number", "is_dev", "timestamp", "received_at"].map((c) => sql.identifier([c])),
        sql.fragment`, `,
      );
      await tx.query(sql.unsafe`insert into metric_events (${columns}) select ${columns} from rm_metric_events_g1.metric_events`);
    });
    const migration = await readFile(new URL("./migrations/002_dimension_rollups.sql", import.meta.url), "utf8");
    const backfill = migration.slice(migration.indexOf("-- A generation that already holds events"));
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query("begin; set local search_path to rm_metric_events_g3, public");
      await client.query(backfill);
      await client.query("commit");
    } finally {
      await client.end();
    }
    // The writes keep rows whose counts went back to 0 (an import moved their events): the backfill never makes them.
    const kept = (table: string) => (table.includes("duration") ? sql.fragment`cardinality(bins) > 0` : sql.fragment`events <> 0`);
    // Sums are equal numbers; their scale (0 or 0.000) follows the additions that made them.
    const values = (rows: readonly string[]) => rows.map((row) => JSON.stringify(JSON.parse(row))).sort();
    for (const table of DIMENSION_ROLLUPS) {
      expect(values(await rowsOf("rm_metric_events_g3", table))).toEqual(values(await rowsOf("rm_metric_events_g1", table, kept(table))));
    }
  });
});
