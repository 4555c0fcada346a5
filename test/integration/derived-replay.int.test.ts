import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectionNamed } from "../../projections/registry.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { appendImport, at, ingestAll, metricEvent, midnightDaysAgo, stepEvent } from "../support/analytics.ts";
import { projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { waitUntil } from "../support/processes.ts";
import { replayDeps, runReplayCli } from "../support/replay.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { streamHead } from "../support/streams.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * `replay metric_events` (operator CLI) and replay() of funnel_events rebuild their read models
 * from sequence 1 with exactly the rows the live projectors wrote: events, hourly counts and dedup
 * entries, after duplicates, imports that update in place and a claim.
 */

let service: TestService;
let http: Client;
let admin: pg.Client;
let owner: SignedIn;

const TABLES = ["metric_events", "metric_event_dedup", "metric_hourly", "metric_error_hourly", "metric_dim_hourly", "metric_dim_error_hourly", "metric_duration_hourly", "metric_duration_daily", "funnel_events", "funnel_event_dedup", "funnel_user_days"];

/**
 * funnel_events with its keys resolved: a generation numbers users and names in the order it
 * first sees them, so only the values they stand for must be the same after a replay.
 */
const FUNNEL_EVENTS = `
  select e.*, u.user_id, s.name as step_name, c.name as screen_name
    from public.funnel_events e
    left join public.funnel_users u on u.user_key = e.user_key
    join public.funnel_names s on s.name_key = e.step_key
    left join public.funnel_names c on c.name_key = e.screen_key`;

/** funnel_user_days with its user and kinds resolved: each kind's first and last time and count, by step and screen name. */
const FUNNEL_USER_DAYS = `
  select s.project_id, s.app_id, u.user_id, s.day, s.is_dev, s.environment, s.app_version, s.first_at, s.last_at,
         (select jsonb_object_agg(n.name || '|' || coalesce(c.name, ''), jsonb_build_array(s.firsts[k.kind], s.lasts[k.kind], s.counts[k.kind]))
            from public.funnel_kinds k join public.funnel_names n on n.name_key = k.step_key left join public.funnel_names c on c.name_key = k.screen_key
           where k.project_id = s.project_id and s.counts[k.kind] is not null) as kinds
    from public.funnel_user_days s join public.funnel_users u on u.user_key = s.user_key`;

/** Every row of the derived read models, read through the public views, in a stable order. */
async function snapshot(): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const table of TABLES) {
    const resolved: Record<string, string> = { funnel_events: FUNNEL_EVENTS, funnel_user_days: FUNNEL_USER_DAYS };
    const source = resolved[table] ? `(${resolved[table]})` : `public.${pg.escapeIdentifier(table)}`;
    const { rows } = await admin.query<{ row: string }>(`select (to_jsonb(t) - 'user_key' - 'step_key' - 'screen_key')::text as row from ${source} t`);
    result[table] = rows.map((row) => row.row).sort();
  }
  return result;
}

async function caughtUp(): Promise<void> {
  const head = await streamHead(service.log, "INGEST");
  await waitUntil("the derived read models to reach the head of INGEST", async () => {
    const { rows } = await admin.query<{ last_seq: string }>(`
      select c.last_seq from projection_checkpoints c
        join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
       where c.projection in ('metric_events', 'funnel_events')`);
    return rows.length === 2 && rows.every((row) => Number(row.last_seq) >= head);
  });
}

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  admin = new pg.Client({ connectionString: service.databaseUrl });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await stopTestService(service);
});

describe("replaying the metric and funnel event read models", () => {
  it("rebuilds identical rows", async () => {
    const target = await projectWithApp(http, owner.token, owner.teamId);
    const D = midnightDaysAgo(2);
    const anonymous = `svc_anon_${randomUUID()}`;
    const sent = [];
    for (let n = 0; n < 60; n += 1) {
      const user = n % 7 === 0 ? anonymous : `user-${n % 9}`;
      const phase = ["start", "complete", "fail", "cancel", "record"][n % 5]!;
      sent.push(metricEvent(n % 2 ? "checkout" : "login", phase, at(D, n % 40, n), { user_id: user }, { duration_ms: String(n * 10), error: `e${n % 3}`, tracking_id: randomUUID() }));
      sent.push(stepEvent(["open", "browse", "buy"][n % 3]!, user, at(D, n % 40, n), { screen_name: n % 2 ? "Home" : "Cart" }));
    }
    // Separate requests, so live projection sees them in separate facts; each repeats events of the one before.
    for (let start = 0; start < sent.length; start += 20) await ingestAll(http, target, [...sent.slice(start, start + 20), ...sent.slice(Math.max(0, start - 5), start)]);
    const key = await http.post("/v1/auth/keys", { name: "import", key_type: "import", app_id: target.app.id }, { token: owner.token });
    await appendImport(service, target.app, key.body.api_key.id, [
      { ...sent[0]!, message: "metric:login:complete", custom_attributes: { duration_ms: "5" } },
      { ...sent[1]!, message: "step:buy" },
      { ...sent[2]!, message: "not a metric" },
      metricEvent("login", "record", at(D, 3), { user_id: "imported" }),
    ]);
    const claim = await http.post("/v1/identity/claim", { anonymous_id: anonymous, user_id: "user-1" }, { token: target.clientKey });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    await ingestAll(http, target, sent.slice(0, 10));
    await caughtUp();

    const live = await snapshot();
    // 60 metric events: the import turned one into a non-metric event and added one.
    expect(live.metric_events!.length).toBe(60);
    expect(live.funnel_events!.length).toBe(60);
    // The claim moved every row of the anonymous id, across the user-hash partitions of funnel_events too.
    expect(live.metric_events!.some((row) => row.includes(anonymous))).toBe(false);
    expect(live.funnel_events!.some((row) => row.includes(anonymous))).toBe(false);
    expect(live.funnel_events!.filter((row) => row.includes('"user_id": "user-1"')).length).toBeGreaterThan(7);
    // Step summaries: a row per user and day (nine users, over days D and D + 1), none of the claimed id.
    expect(live.funnel_user_days!.length).toBeGreaterThanOrEqual(9);
    expect(live.funnel_user_days!.some((row) => row.includes(anonymous))).toBe(false);

    const cli = runReplayCli(service, "metric_events");
    const deps = replayDeps(service);
    const [exit, funnelGeneration] = await Promise.all([cli.exited, replay(deps, projectionNamed("funnel_events"))]);
    expect(exit, cli.output()).toEqual({ code: 0, signal: null });
    expect(funnelGeneration).toBe(2);
    const rebuilt = await snapshot();
    for (const table of TABLES) expect(rebuilt[table], table).toEqual(live[table]);
    const { rows } = await admin.query("select projection, active_generation from projection_generations where projection in ('metric_events', 'funnel_events') order by 1");
    expect(rows).toEqual([
      { projection: "funnel_events", active_generation: 2 },
      { projection: "metric_events", active_generation: 2 },
    ]);
  });
});
