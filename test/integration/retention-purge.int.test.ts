import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runRetentionCleanup } from "../../apps/worker/jobs/retention-cleanup.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { purgeIngestBefore } from "../../streams/purge.ts";
import { streamState } from "../../streams/stream-head.ts";
import { identity } from "../support/app-users.ts";
import { anEvent } from "../support/events.ts";
import type { Client } from "../support/http.ts";
import { replayDeps, runReplayCli } from "../support/replay.ts";
import { allIngestSettled, columnOf, DAY, importEvents, importTarget, ingestEvents, storedMessages, type ImportTarget } from "../support/retention.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { streamHead } from "../support/streams.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The INGEST stream stops growing without bound: a project's event batches stored before a cutoff
 * are purged while its identity facts stay, the projectors and `replay` work on the stream with
 * the holes a purge leaves (its last messages included), and after the retention job a replay of
 * the event read models rebuilds exactly the rows that survived it.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
});
afterAll(async () => stopTestService(service));

const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
const event = (message: string, timestamp?: string, fields: Record<string, unknown> = {}) => anEvent({ message, timestamp, client_event_id: null, ...fields });
const subjectsOf = (messages: { subject: string }[]) => messages.map((message) => message.subject);

describe("purgeIngestBefore", () => {
  let purgedProject: ImportTarget;
  let other: ImportTarget;

  it("removes a project's event batches stored before the cutoff, and keeps its identity facts, its newer batches and other projects' batches", async () => {
    purgedProject = await importTarget(http, owner, {});
    other = await importTarget(http, owner, {});
    const names = service.log.names;
    const batches = names.ingestSubject(purgedProject.projectId, purgedProject.appId);
    await ingestEvents(http, purgedProject, [event("old, ingested")]);
    expect((await identity(http, purgedProject.clientKey, "/claim", { anonymous_id: "svc_anon_p", user_id: "known-p" })).status).toBe(200);
    expect((await identity(http, purgedProject.clientKey, "/properties", { user_id: "known-p", properties: { plan: "pro" } })).status).toBe(200);
    await importEvents(http, purgedProject, [event("old, imported", ago(3))]);
    await ingestEvents(http, other, [event("other project, old")]);
    await pause();
    const cutoff = new Date();
    await pause();
    await ingestEvents(http, purgedProject, [event("new")]);
    const before = await storedMessages(service.log);
    expect(subjectsOf(before).filter((subject) => subject === batches)).toHaveLength(3);

    const purged = await purgeIngestBefore(service.log, { projectId: purgedProject.projectId, before: cutoff });

    expect(purged).toMatchObject({ subject: names.projectBatches(purgedProject.projectId), purged: 2 });
    const after = await storedMessages(service.log);
    const newest = before.filter((message) => message.subject === batches).at(-1)!;
    expect(after.filter((message) => message.subject === batches)).toEqual([newest]);
    // Identity facts define users for ever: the claim and the property change are still there.
    expect(subjectsOf(after).filter((subject) => subject === names.identitySubject(purgedProject.projectId, "svc_anon_p"))).toHaveLength(1);
    expect(subjectsOf(after).filter((subject) => subject === names.identitySubject(purgedProject.projectId, "known-p"))).toHaveLength(1);
    expect(subjectsOf(after).filter((subject) => subject === names.ingestSubject(other.projectId, other.appId))).toHaveLength(1);
    expect(after).toEqual(before.filter((message) => message.subject !== batches || message.seq === newest.seq));
    // Again: nothing more below the cutoff.
    expect((await purgeIngestBefore(service.log, { projectId: purgedProject.projectId, before: cutoff })).purged).toBe(0);
  });

  it("leaves a stream whose last messages are purged readable: its head is the last message stored, replay finishes and projectors go on", async () => {
    await allIngestSettled(service);
    // The project's newest batch is the stream's last message: purge it too.
    expect((await purgeIngestBefore(service.log, { projectId: purgedProject.projectId, before: new Date() })).purged).toBe(1);
    const stored = await storedMessages(service.log);
    const head = await streamHead(service.log, "INGEST");
    expect(head).toBe(stored.at(-1)!.seq);
    expect((await streamState(service.log, "INGEST")).lastSeq).toBeGreaterThan(head);

    const generation = await replay(replayDeps(service), projectionNamed("events"));
    expect(generation).toBe(2);
    // The rebuilt generation holds what the stream still holds: the other project's event only.
    expect(await columnOf(service, "events", "message", other.projectId)).toEqual(["other project, old"]);
    expect(await columnOf(service, "events", "message", purgedProject.projectId)).toEqual([]);

    await ingestEvents(http, purgedProject, [event("after the replay")]);
    await allIngestSettled(service);
    expect(await columnOf(service, "events", "message", purgedProject.projectId)).toEqual(["after the replay"]);
  });
});

describe("runRetentionCleanup", () => {
  it("purges only what every read model may lose; a replay of the event read models then rebuilds exactly the rows that survived", { timeout: 120_000 }, async () => {
    const short = await importTarget(http, owner, { retention_days_events: 30, retention_days_metrics: 30, retention_days_funnels: 30 });
    const long = await importTarget(http, owner, { retention_days_events: 36_500, retention_days_metrics: 36_500, retention_days_funnels: 36_500 });
    await importEvents(http, short, [
      event("short: 20 days ago", ago(20)),
      event("metric:pay:complete", ago(20), { user_id: "old-payer" }),
      event("step:open", ago(20), { user_id: "old-opener" }),
      event("short: an hour ago", ago(1 / 24)),
    ]);
    expect((await identity(http, short.clientKey, "/claim", { anonymous_id: "svc_anon_short", user_id: "known-short" })).status).toBe(200);
    await importEvents(http, long, [event("long: 200 days ago", ago(200)), event("long: 5 days ago", ago(5)), event("metric:pay:complete", ago(200), { user_id: "long-payer" })]);
    await allIngestSettled(service);
    // The long project now keeps events 120 days only; its metric and funnel events still for ever.
    expect((await http.patch(`/v1/projects/${long.projectId}`, { retention_days_events: null }, { token: owner.token })).status).toBe(200);
    await pause();
    const middle = new Date();
    await pause();
    await ingestEvents(http, short, [event("short: after the middle"), event("metric:pay:complete", undefined, { user_id: "new-payer" }), event("step:open", undefined, { user_id: "new-opener" })]);
    await allIngestSettled(service);

    // Thirty days after the middle, everything of the short project before it has expired.
    const later = new Date(middle.getTime() + 30 * DAY);
    const steps: number[] = [];
    const result = await runRetentionCleanup({ pool: service.pool, log: service.log, logger: service.logger }, later, async (processed, total) => {
      steps.push(processed);
      expect(processed).toBeLessThanOrEqual(total);
    });

    expect(await columnOf(service, "events", "message", short.projectId)).toEqual(["metric:pay:complete", "short: after the middle", "step:open"]);
    expect(await columnOf(service, "events", "message", long.projectId)).toEqual(["long: 5 days ago"]);
    expect(await columnOf(service, "metric_events", "user_id", short.projectId)).toEqual(["new-payer"]);
    expect(await columnOf(service, "metric_events", "user_id", long.projectId)).toEqual(["long-payer"]);
    expect(result.partitions_dropped).toContain(`rm_events_g2.events_p${ago(200).slice(0, 7).replace("-", "")}`);
    // The short project's batch from before the middle is gone from the stream, its claim is not;
    // the long project keeps every batch (its metric events are kept for ever).
    expect(result.ingest_purged).toEqual([{ project_id: short.projectId, before: middle.toISOString(), purged: 1 }]);
    const stored = subjectsOf(await storedMessages(service.log));
    expect(stored).toContain(service.log.names.identitySubject(short.projectId, "svc_anon_short"));
    expect(stored.filter((subject) => subject === service.log.names.ingestSubject(short.projectId, short.appId))).toHaveLength(1);
    expect(stored.filter((subject) => subject === service.log.names.ingestSubject(long.projectId, long.appId))).toHaveLength(1);
    expect(steps.at(-1)).toBeGreaterThan(0);

    // Replays rebuild exactly what survived: the purged batch cannot come back, and the long
    // project's expired event, whose batch is still there, is skipped by the projector. The events
    // replay runs in its own process (the operator's CLI), which reads the changed retention fresh.
    const projects = [short.projectId, long.projectId];
    const survivors = await rowsOf(projects);
    const cli = runReplayCli(service, "events");
    expect(await cli.exited, cli.output()).toEqual({ code: 0, signal: null });
    await replay(replayDeps(service), projectionNamed("metric_events"));
    await replay(replayDeps(service), projectionNamed("funnel_events"));
    expect(await rowsOf(projects)).toEqual(survivors);

    // The projectors go on with new batches.
    await ingestEvents(http, short, [event("short: after the replay")]);
    await allIngestSettled(service);
    expect(await columnOf(service, "events", "message", short.projectId)).toContain("short: after the replay");
  });
});

/**
 * The rows of the event read models that belong to `projects`, in a stable order. Funnel events
 * are compared without their user and name keys, which a replay may number differently.
 */
async function rowsOf(projects: string[]) {
  const rows = async (query: ReturnType<typeof sql.unsafe>) => [...(await service.pool.anyFirst(sql.type(z.object({ row: z.string() }))`${query}`))].sort();
  const ids = sql.array(projects, "uuid");
  return {
    events: await rows(sql.unsafe`select to_jsonb(t)::text as row from events t where project_id = any(${ids})`),
    retimed: await rows(sql.unsafe`select to_jsonb(r)::text as row from event_retimed r join events e using (id) where e.project_id = any(${ids})`),
    metric_events: await rows(sql.unsafe`select to_jsonb(t)::text as row from metric_events t where project_id = any(${ids})`),
    metric_hourly: await rows(sql.unsafe`select to_jsonb(t)::text as row from metric_hourly t where project_id = any(${ids})`),
    funnel_events: await rows(sql.unsafe`select jsonb_build_object('id', id, 'timestamp', "timestamp", 'app_id', app_id)::text as row from funnel_events where project_id = any(${ids})`),
  };
}
