import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { removeExpiredRows } from "../../projections/retention/cleanup.ts";
import { anEvent } from "../support/events.ts";
import type { Client } from "../support/http.ts";
import { allIngestSettled, columnOf, DAY, importEvents, importTarget, type ImportTarget } from "../support/retention.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The retention cleanup against real Postgres and NATS: rows older than their project's retention
 * are deleted per project and read model, a month expired for every project loses its partition
 * whole, a month expired in part keeps its newer rows, and a second run finds nothing to do.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
});
afterAll(async () => stopTestService(service));

/** Keeps everything while the test writes its history; the retention under test is set afterwards. */
const KEEP_ALL = { retention_days_events: 36_500, retention_days_metrics: 36_500, retention_days_funnels: 36_500 };

const now = Date.now();
const ago = (days: number) => new Date(now - days * DAY).toISOString();
const month = (iso: string) => iso.slice(0, 7).replace("-", "");

/** Two instants on either side of `cutoffMs`, a little apart, in the month of the cutoff. */
function aroundInOneMonth(cutoffMs: number): [string, string] {
  const cutoff = new Date(cutoffMs);
  const start = Date.UTC(cutoff.getUTCFullYear(), cutoff.getUTCMonth(), 1);
  const end = Date.UTC(cutoff.getUTCFullYear(), cutoff.getUTCMonth() + 1, 1);
  const delta = Math.min(2 * 3_600_000, (cutoffMs - start) / 2, (end - cutoffMs) / 2);
  return [new Date(cutoffMs - delta).toISOString(), new Date(cutoffMs + delta).toISOString()];
}

const event = (message: string, timestamp: string, fields: Record<string, unknown> = {}) => anEvent({ message, timestamp, client_event_id: null, ...fields });

const partitionsOf = async (table: string) =>
  service.pool.anyFirst(sql.type(z.object({ name: z.string() }))`
    select n.nspname || '.' || c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent join pg_namespace n on n.oid = p.relnamespace
      join projection_generations g on n.nspname = 'rm_' || g.projection || '_g' || g.active_generation
     where p.relname = ${table}`);

describe("removeExpiredRows", () => {
  let first: ImportTarget;
  let second: ImportTarget;
  const [justExpired, justKept] = aroundInOneMonth(now - 120 * DAY);

  it("deletes per project what its retention expired, drops months expired for every project, and keeps the rest", async () => {
    first = await importTarget(http, owner, KEEP_ALL);
    second = await importTarget(http, owner, KEEP_ALL);
    const movedFar = randomUUID();
    const movedNear = randomUUID();
    await importEvents(http, first, [
      event("first: two years ago", ago(730)),
      event("first: 130 days ago", ago(130)),
      event("first: 10 days ago", ago(10)),
      event("metric:pay:complete", ago(730), { user_id: "m730" }),
      event("metric:pay:complete", ago(200), { user_id: "m200" }),
      event("metric:pay:complete", ago(10), { user_id: "m10" }),
      event("step:open", ago(100), { user_id: "s100" }),
      event("step:open", ago(10), { user_id: "s10" }),
    ]);
    await importEvents(http, second, [
      event("second: just expired", justExpired),
      event("second: just kept", justKept),
      event("second: moved two years back", ago(20), { client_event_id: movedFar }),
      event("second: moved to just expired", ago(20), { client_event_id: movedNear }),
      event("metric:pay:complete", ago(100), { user_id: "m100" }),
      event("metric:pay:complete", ago(80), { user_id: "m80" }),
      event("step:open", ago(200), { user_id: "s200" }),
    ]);
    // Imports update in place: the two moved events keep their ids under another time (event_retimed).
    await importEvents(http, second, [
      event("second: moved two years back", ago(729), { client_event_id: movedFar }),
      event("second: moved to just expired", justExpired, { client_event_id: movedNear }),
    ]);
    await allIngestSettled(service);
    expect(await service.pool.oneFirst(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from event_retimed`)).toBe(2);
    expect(await partitionsOf("events")).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`\\.events_p${month(ago(730))}$`))]));

    // The retention under test: the first project 150 days of events, default metrics, 50 days of
    // funnel events; the second default events (120), 90 days of metric events, default funnels.
    const patched = [
      await http.patch(`/v1/projects/${first.projectId}`, { retention_days_events: 150, retention_days_metrics: null, retention_days_funnels: 50 }, { token: owner.token }),
      await http.patch(`/v1/projects/${second.projectId}`, { retention_days_events: null, retention_days_metrics: 90, retention_days_funnels: null }, { token: owner.token }),
    ];
    expect(patched.map((answer) => answer.status)).toEqual([200, 200]);

    const steps: [number, number, string][] = [];
    const result = await removeExpiredRows(service.pool, new Date(), async (processed, total, message) => {
      steps.push([processed, total, message]);
    });

    // Events: the longest event retention is 150 days, so the month two years back goes whole, with
    // the retimed timestamp of the event moved into it; the month of the second project's cutoff
    // loses only what is older than the cutoff.
    expect(result.partitions_dropped).toEqual(expect.arrayContaining([`rm_events_g1.events_p${month(ago(730))}`, `rm_metric_events_g1.metric_events_p${month(ago(730))}`]));
    expect(await partitionsOf("events")).not.toContain(`rm_events_g1.events_p${month(ago(730))}`);
    // (Metric and step events are events too.)
    expect(await columnOf(service, "events", "timestamp", first.projectId)).toEqual([ago(10), ago(10), ago(10), ago(100), ago(130)].sort());
    expect(await columnOf(service, "events", "timestamp", second.projectId)).toEqual([justKept, ago(100), ago(80)].sort());
    expect(await service.pool.anyFirst(sql.type(z.object({ id: z.string() }))`select id from event_retimed`)).toEqual([]);
    expect(result).toMatchObject({ events_deleted: 2, event_retimed_deleted: 2 });
    // The events count rollups go with the events they count.
    const hours = (timestamp: string) => new Date(Math.floor(Date.parse(timestamp) / 3_600_000) * 3_600_000).toISOString();
    const minutes = (timestamp: string) => new Date(Math.floor(Date.parse(timestamp) / 60_000) * 60_000).toISOString();
    const rolledUp = async (table: string, column: string) => [...new Set(await columnOf(service, table, column, first.projectId))];
    expect(await rolledUp("event_totals_minute", "minute")).toEqual([...new Set([ago(10), ago(100), ago(130)].map(minutes))].sort());
    expect(await rolledUp("event_totals_hour", "hour")).toEqual([...new Set([ago(10), ago(100), ago(130)].map(hours))].sort());
    expect(result.event_rollups_deleted).toBeGreaterThan(0);

    // Metric events and their hourly counts: 365 days for the first project, 90 for the second.
    expect(await columnOf(service, "metric_events", "user_id", first.projectId)).toEqual(["m10", "m200"]);
    expect(await columnOf(service, "metric_events", "user_id", second.projectId)).toEqual(["m80"]);
    expect(await columnOf(service, "metric_hourly", "hour", first.projectId)).toEqual([hours(ago(10)), hours(ago(200))].sort());
    expect(await columnOf(service, "metric_hourly", "hour", second.projectId)).toEqual([hours(ago(80))]);
    expect(result).toMatchObject({ metric_events_deleted: 1, metric_hourly_deleted: 2 });
    // The rollups by dimension and the duration digests go by the same hours.
    expect([...new Set(await columnOf(service, "metric_dim_hourly", "hour", first.projectId))]).toEqual([hours(ago(10)), hours(ago(200))].sort());
    expect(await columnOf(service, "metric_dim_hourly", "hour", second.projectId)).toEqual(Array(4).fill(hours(ago(80))));
    expect(result.metric_dimension_rollups_deleted).toBeGreaterThan(0);

    // Funnel events (not partitioned by time): 50 days for the first project, 365 for the second.
    expect(await columnOf(service, "funnel_events", "timestamp", first.projectId)).toEqual([ago(10)]);
    expect(await columnOf(service, "funnel_events", "timestamp", second.projectId)).toEqual([ago(200)]);
    expect(result.funnel_events_deleted).toBe(1);
    // Their per-user step summaries go with them: one row per user and day here.
    expect(await columnOf(service, "funnel_user_days", "last_at", first.projectId)).toEqual([ago(10)]);
    expect(await columnOf(service, "funnel_user_days", "last_at", second.projectId)).toEqual([ago(200)]);
    expect(result.funnel_user_days_deleted).toBe(1);

    // Progress: counted up to the total, one report per step at least.
    expect(steps.at(-1)![0]).toBe(steps.at(-1)![1]);
    expect(steps.map(([processed]) => processed)).toEqual([...steps.map(([processed]) => processed)].sort((a, b) => a - b));
  });

  it("finds nothing more to do when run again", async () => {
    const again = await removeExpiredRows(service.pool, new Date());
    expect(again).toEqual({
      partitions_dropped: [],
      events_deleted: 0,
      event_retimed_deleted: 0,
      metric_events_deleted: 0,
      metric_hourly_deleted: 0,
      metric_error_hourly_deleted: 0,
      metric_dimension_rollups_deleted: 0,
      funnel_events_deleted: 0,
      funnel_user_days_deleted: 0,
      event_rollups_deleted: 0,
    });
    expect(await columnOf(service, "events", "timestamp", first.projectId)).toEqual([ago(10), ago(10), ago(10), ago(100), ago(130)].sort());
  });

  it("stops between steps when onStep throws", async () => {
    const stop = new Error("cancelled");
    await expect(
      removeExpiredRows(service.pool, new Date(), async (processed) => {
        if (processed === 0) throw stop;
      }),
    ).rejects.toBe(stop);
  });
});
