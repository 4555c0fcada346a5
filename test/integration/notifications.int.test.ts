import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { CommandDeps } from "../../apps/commands/deps.ts";
import { runInboxCommand } from "../../apps/commands/notification-command.ts";
import { OneAtATime } from "../../apps/commands/one-at-a-time.ts";
import { runIssueDigests } from "../../apps/worker/jobs/issue-digest.ts";
import { runNotificationCleanup } from "../../apps/worker/jobs/notification-cleanup.ts";
import { digestPeriod } from "../../domain/issues/digest.ts";
import type { DeliveryChannel } from "../../domain/notifications/rules.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { createProject, projectWithApp } from "../support/catalog.ts";
import { apnsSettings, startFakeApns, type FakeApns } from "../support/fake-apns.ts";
import { anEvent, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { outboxMessages } from "../support/outbox.ts";
import { waitUntil } from "../support/processes.ts";
import { replayDeps } from "../support/replay.ts";
import { startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * The inbox, devices and the dispatcher through HTTP against real NATS and Postgres, with the
 * worker pushing to a local fake APNs gateway. Notifications of types whose sources are not built
 * yet are created as the dispatcher creates them (runInboxCommand).
 */

const DAY = 24 * 60 * 60 * 1000;

let service: TestService;
let http: Client;
let owner: SignedIn;
let apns: FakeApns;
let deps: CommandDeps;
let progress: ProgressWatcher;

beforeAll(async () => {
  apns = await startFakeApns();
  ({ service, http, owner } = await startWithOwner(await testConfig(apnsSettings(apns))));
  progress = new ProgressWatcher(service.databaseUrl, service.logger);
  await progress.start();
  deps = { config: service.config, log: service.log, pool: service.pool, progress, oneAtATime: new OneAtATime() };
});
afterAll(async () => {
  await progress.stop();
  await stopTestService(service);
  await apns.close();
});

/** A notification created as the dispatcher creates one; returns its id. */
async function notify(userId: string, type: string, options: { createdAt?: string; channels?: DeliveryChannel[]; title?: string } = {}): Promise<string> {
  const id = randomUUID();
  await runInboxCommand(
    deps,
    {
      type: "CreateNotification",
      notification: {
        notification_id: id,
        user_id: userId,
        notification_type: type,
        title: options.title ?? `${type} title`,
        body: `${type} body`,
        link: `${service.config.publicBaseUrl}/dashboard/issues/${randomUUID()}`,
        team_id: null,
        data: { secret: "internal" },
        channels: options.channels ?? [],
        source_id: randomUUID(),
        created_at: options.createdAt ?? new Date().toISOString(),
      },
    },
    SYSTEM_ACTOR,
  );
  return id;
}

const list = (user: SignedIn, query = "") => http.get(`/v1/notifications${query}`, { token: user.token });
const ids = (response: { body: any }) => response.body.notifications.map((n: any) => n.id);
const agentKey = async (user: SignedIn) =>
  (await http.post("/v1/auth/keys", { name: "inbox", key_type: "agent", team_id: user.teamId }, { token: user.token })).body.api_key.secret as string;
const register = (user: SignedIn, body: Record<string, unknown>) => http.post("/v1/devices", { channel: "mobile_push", platform: "ios", ...body }, { token: user.token });

describe("GET /v1/notifications and the inbox routes", () => {
  let reader: SignedIn;
  const created: string[] = [];

  beforeAll(async () => {
    reader = await signIn(http, service.outbox);
    // Oldest first; two share a millisecond so the cursor's id part matters.
    const base = Date.now() - 60_000;
    created.push(await notify(reader.userId, "issue.digest", { createdAt: new Date(base).toISOString() }));
    created.push(await notify(reader.userId, "job.completed", { createdAt: new Date(base + 1000).toISOString() }));
    created.push(await notify(reader.userId, "issue.digest", { createdAt: new Date(base + 1000).toISOString() }));
    created.push(await notify(reader.userId, "feedback.new", { createdAt: new Date(base + 2000).toISOString() }));
  });

  it("lists newest first with the <timestamp>|<id> cursor, without data", async () => {
    const newestFirst = [created[3], ...[created[1], created[2]].sort().reverse(), created[0]];
    const first = await list(reader, "?limit=2");
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(newestFirst.slice(0, 2));
    expect(first.body).toMatchObject({ has_more: true, cursor: expect.stringMatching(/^\d{4}-.+Z\|[0-9a-f-]{36}$/) });
    expect(first.body.notifications[0]).toEqual({
      id: created[3],
      type: "feedback.new",
      title: "feedback.new title",
      body: "feedback.new body",
      link: expect.stringContaining("/dashboard/issues/"),
      team_id: null,
      read_at: null,
      created_at: expect.any(String),
    });
    const second = await list(reader, `?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(ids(second)).toEqual(newestFirst.slice(2));
    expect(second.body).toMatchObject({ has_more: false, cursor: null });
    expect((await list(reader, "?cursor=yesterday")).status).toBe(400);
  });

  it("filters by type, ignoring unknown types, and by read_state", async () => {
    expect(ids(await list(reader, "?type=issue.digest")).sort()).toEqual([created[0], created[2]].sort());
    expect(ids(await list(reader, "?type=issue.digest,no.such")).sort()).toEqual([created[0], created[2]].sort());
    expect(ids(await list(reader, "?type=no.such"))).toHaveLength(4);
    expect((await list(reader, "?read_state=sometimes")).status).toBe(400);
    const patched = await http.patch(`/v1/notifications/${created[1]}`, {}, { token: reader.token });
    expect(patched.status).toBe(200);
    expect(patched.body.notification).toMatchObject({ id: created[1], read_at: expect.any(String) });
    expect(ids(await list(reader, "?read_state=read"))).toEqual([created[1]]);
    expect(ids(await list(reader, "?read_state=unread"))).not.toContain(created[1]);
    expect(ids(await list(reader, "?read_state=all"))).toHaveLength(4);
  });

  it("counts unread, marks read and unread, marks all read by type", async () => {
    const count = async () => (await http.get("/v1/notifications/unread-count", { token: reader.token })).body.count;
    await http.patch(`/v1/notifications/${created[1]}`, { read: false }, { token: reader.token });
    expect(await count()).toBe(4);
    const unread = await http.patch(`/v1/notifications/${created[1]}`, { read: false }, { token: reader.token });
    expect(unread.body.notification.read_at).toBeNull();
    expect((await http.post("/v1/notifications/mark-all-read", { type: "issue.digest" }, { token: reader.token })).body).toEqual({ marked: 2 });
    expect(await count()).toBe(2);
    expect((await http.post("/v1/notifications/mark-all-read", { type: "issue.digest" }, { token: reader.token })).body).toEqual({ marked: 0 });
    expect((await http.post("/v1/notifications/mark-all-read", {}, { token: reader.token })).body).toEqual({ marked: 2 });
    expect(await count()).toBe(0);
  });

  it("soft-deletes, and answers 404 for deleted, missing and other users' notifications", async () => {
    const other = await signIn(http, service.outbox);
    const theirs = await notify(other.userId, "job.completed");
    expect((await http.patch(`/v1/notifications/${theirs}`, { read: true }, { token: reader.token })).status).toBe(404);
    expect((await http.delete(`/v1/notifications/${theirs}`, { token: reader.token })).status).toBe(404);
    expect((await http.patch(`/v1/notifications/${randomUUID()}`, {}, { token: reader.token })).body).toEqual(anError);
    const removed = await http.delete(`/v1/notifications/${created[0]}`, { token: reader.token });
    expect(removed).toMatchObject({ status: 200, body: { id: created[0] } });
    expect(ids(await list(reader))).not.toContain(created[0]);
    expect((await http.delete(`/v1/notifications/${created[0]}`, { token: reader.token })).status).toBe(404);
    expect((await http.patch(`/v1/notifications/${created[0]}`, {}, { token: reader.token })).status).toBe(404);
    expect(ids(await list(other))).toEqual([theirs]);
  });

  it("refuses agent keys with 403 on every inbox and device route", async () => {
    const key = await agentKey(reader);
    const refused = [
      await http.get("/v1/notifications", { token: key }),
      await http.get("/v1/notifications/unread-count", { token: key }),
      await http.post("/v1/notifications/mark-all-read", {}, { token: key }),
      await http.patch(`/v1/notifications/${created[1]}`, {}, { token: key }),
      await http.delete(`/v1/notifications/${created[1]}`, { token: key }),
      await http.post("/v1/devices", { channel: "mobile_push", platform: "ios", token: "agent" }, { token: key }),
      await http.get("/v1/devices", { token: key }),
      await http.delete(`/v1/devices/${randomUUID()}`, { token: key }),
    ];
    expect(refused.map((response) => response.status)).toEqual(refused.map(() => 403));
    expect((await http.get("/v1/notifications")).status).toBe(401);
  });
});

describe("notification_cleanup", () => {
  it("purges soft-deleted notifications 90 days after their delete, through facts", async () => {
    const user = await signIn(http, service.outbox);
    const kept = await notify(user.userId, "issue.digest");
    const deleted = await notify(user.userId, "issue.digest");
    await http.delete(`/v1/notifications/${deleted}`, { token: user.token });
    const rowOf = (id: string) => service.pool.maybeOneFirst(sql.type(z.object({ id: z.string() }))`select id from notifications where id = ${id}`);
    expect((await runNotificationCleanup(deps, new Date(Date.now() + 89 * DAY))).deleted).toBe(0);
    expect(await rowOf(deleted)).toBe(deleted);
    expect((await runNotificationCleanup(deps, new Date(Date.now() + 91 * DAY))).deleted).toBeGreaterThanOrEqual(1);
    expect(await rowOf(deleted)).toBeNull();
    expect(await rowOf(kept)).toBe(kept);
    expect(ids(await list(user))).toEqual([kept]);
  });
});

describe("issue.digest", () => {
  /** A project of the owner's team at `frequency` with production errors in the hour before `now`. */
  async function projectWithErrors(frequency: string, now: Date, errors: { message: string; sessions: number }[]) {
    const { project, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId, {}, { name: `Digest ${frequency}` });
    expect((await http.patch(`/v1/projects/${project.id}`, { issue_alert_frequency: frequency }, { token: owner.token })).status).toBe(200);
    const hourAgo = digestPeriod("hourly", now)!;
    const at = new Date(Date.parse(hourAgo.start) + 10 * 60_000).toISOString();
    const events = errors.flatMap(({ message, sessions }) => Array.from({ length: sessions }, () => anEvent({ level: "error", message, session_id: randomUUID(), timestamp: at })));
    expect((await ingest(http, clientKey, { bundle_id: app.bundle_id, events })).status).toBe(200);
    await waitUntil(
      "the errors' issues",
      async () => (await http.get(`/v1/projects/${project.id}/issues`, { token: owner.token })).body.issues?.length === errors.length,
      10_000,
      50,
    );
    return project;
  }

  const digestsOf = async (projectId: string) =>
    (await list(owner, "?type=issue.digest&limit=100")).body.notifications.filter((notice: any) => notice.link.endsWith(`project_id=${projectId}`));

  it("sends each period's digest once to every member, and nothing for none", async () => {
    const now = new Date();
    const hourly = await projectWithErrors("hourly", now, [
      { message: `Digest busy ${randomUUID().slice(0, 8).replace(/\d/g, "x")}`, sessions: 3 },
      { message: `Digest rare ${randomUUID().slice(0, 8).replace(/\d/g, "x")}`, sessions: 1 },
    ]);
    const silent = await projectWithErrors("none", now, [{ message: `Digest silent ${randomUUID().slice(0, 8).replace(/\d/g, "x")}`, sessions: 1 }]);

    expect((await runIssueDigests(deps, now)).digests).toBeGreaterThanOrEqual(1);
    const [digest, ...others] = await waitUntil("the digest notice", async () => ((await digestsOf(hourly.id)).length > 0 ? digestsOf(hourly.id) : undefined), 10_000, 50);
    expect(others).toEqual([]);
    expect(digest).toMatchObject({ type: "issue.digest", title: "Digest hourly: 2 issues in the last hour", team_id: owner.teamId });
    const [busy, rare] = digest.body.split("\n");
    expect(busy).toMatch(/^New: Digest busy .* \(3 occurrences\)$/);
    expect(rare).toMatch(/^New: Digest rare .* \(1 occurrence\)$/);
    expect(digest.link).toBe(`${service.config.publicBaseUrl}/dashboard/issues?project_id=${hourly.id}`);

    // A second run in the same period (another worker, a retry) sends nothing new.
    await runIssueDigests(deps, now);
    // The next period has no occurrences of these issues: nothing to report.
    await runIssueDigests(deps, new Date(now.getTime() + 60 * 60_000));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await digestsOf(hourly.id)).toHaveLength(1);
    expect(await digestsOf(silent.id)).toEqual([]);
  });
});

describe("POST/GET/DELETE /v1/devices", () => {
  it("registers, refreshes, reassigns, lists without the token and deletes", async () => {
    const alice = await signIn(http, service.outbox);
    const bob = await signIn(http, service.outbox);
    const token = `tok-${randomUUID()}`;
    const first = await register(alice, { token, environment: "sandbox", app_version: "1.0", device_model: "iPhone15,2", os_version: "18.0" });
    expect(first.status).toBe(201);
    expect(first.body.device).toEqual({
      id: expect.any(String),
      channel: "mobile_push",
      platform: "ios",
      environment: "sandbox",
      app_version: "1.0",
      device_model: "iPhone15,2",
      os_version: "18.0",
      last_seen_at: expect.any(String),
      created_at: expect.any(String),
    });
    const again = await register(alice, { token, environment: "whatever", app_version: "1.1" });
    expect(again.body.device).toMatchObject({ id: first.body.device.id, environment: "production", app_version: "1.1", created_at: first.body.device.created_at });
    expect(Date.parse(again.body.device.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(first.body.device.last_seen_at));
    const other = await register(alice, { token: `tok-${randomUUID()}`, platform: "android" });
    const listed = await http.get("/v1/devices", { token: alice.token });
    expect(listed.body.devices.map((d: any) => d.id)).toEqual([other.body.device.id, first.body.device.id]);
    expect(JSON.stringify(listed.body)).not.toContain(token);

    const moved = await register(bob, { token });
    expect(moved.status).toBe(201);
    expect((await http.get("/v1/devices", { token: alice.token })).body.devices.map((d: any) => d.id)).toEqual([other.body.device.id]);
    expect((await http.get("/v1/devices", { token: bob.token })).body.devices.map((d: any) => d.id)).toEqual([moved.body.device.id]);
    expect((await http.delete(`/v1/devices/${moved.body.device.id}`, { token: alice.token })).status).toBe(404);
    expect(await http.delete(`/v1/devices/${moved.body.device.id}`, { token: bob.token })).toMatchObject({ status: 200, body: { id: moved.body.device.id } });
    expect((await http.get("/v1/devices", { token: bob.token })).body.devices).toEqual([]);
    expect((await http.delete(`/v1/devices/${moved.body.device.id}`, { token: bob.token })).status).toBe(404);
  });

  it("answers 400 for a channel other than mobile_push and a bad platform", async () => {
    expect(await register(owner, { channel: "sms", token: "x" })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/channel/) } });
    expect((await register(owner, { platform: "windows", token: "x" })).status).toBe(400);
    expect((await register(owner, { token: "" })).status).toBe(400);
  });
});

describe("the dispatcher", () => {
  it("puts a job.completed notice in the inbox, emails it and pushes it to the triggering user's iOS device", async () => {
    const token = `tok-${randomUUID()}`;
    await register(owner, { token, environment: "production" });
    const { id: projectId } = await createProject(http, owner.token, owner.teamId);
    const run = (await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "issue_scan", project_id: projectId, notify: true }, { token: owner.token })).body.job_run;
    const notice = await waitUntil("the job notice in the inbox", async () => (await list(owner, "?type=job.completed")).body.notifications[0]);
    expect(notice).toMatchObject({ type: "job.completed", title: "Job issue_scan completed", team_id: owner.teamId, link: `${service.config.publicBaseUrl}/dashboard/jobs` });
    expect(notice.body).toContain(run.id);
    const mail = await waitUntil("the job notice mail", async () => (await outboxMessages(service.outbox)).find((m) => m.to === owner.email && m.subject === "Job issue_scan completed"));
    expect(mail.text).toContain(run.id);
    const push = await waitUntil("the push", () => apns.received.find((p) => p.token === token));
    expect(push).toMatchObject({ topic: apns.topic, pushType: "alert", status: 200 });
    expect(push.payload).toMatchObject({ aps: { alert: { title: "Job issue_scan completed", body: notice.body } }, notification_id: notice.id, type: "job.completed" });
    expect(apns.refusedAuth).toEqual([]);
  });

  it("deletes a device the gateway reports unregistered (410) or bad (400)", async () => {
    const user = await signIn(http, service.outbox);
    const gone = `tok-${randomUUID()}`;
    const bad = `tok-${randomUUID()}`;
    apns.behave(gone, "unregistered");
    apns.behave(bad, "bad");
    await register(user, { token: gone });
    await register(user, { token: bad, environment: "sandbox" });
    await notify(user.userId, "issue.new", { channels: ["push"] });
    await waitUntil("both devices deleted", async () => (await http.get("/v1/devices", { token: user.token })).body.devices.length === 0);
    expect(apns.received.filter((p) => p.token === gone || p.token === bad).map((p) => p.status).sort()).toEqual([400, 410]);
  });

  it("retries a push through a gateway outage with backoff without holding back the inbox", async () => {
    const user = await signIn(http, service.outbox);
    const token = `tok-${randomUUID()}`;
    apns.behave(token, "unavailable");
    await register(user, { token });
    const id = await notify(user.userId, "issue.new", { channels: ["push"] });
    expect(ids(await list(user))).toEqual([id]);
    // The client retries a 503 itself a few times; the outage outlasts that, so the failure is recorded.
    const deliveryOf = () =>
      service.pool.maybeOne(sql.type(z.object({ status: z.string(), attempts: z.number() }))`
        select status, attempts from notification_deliveries where notification_id = ${id} and channel = 'push'`);
    expect(await waitUntil("the failed delivery recorded", async () => (await deliveryOf())?.status === "failed" && deliveryOf())).toMatchObject({ attempts: 1 });
    expect(apns.received.filter((p) => p.token === token).every((p) => p.status === 503)).toBe(true);
    apns.behave(token, "ok");
    await waitUntil("the push delivered after the outage", () => apns.received.some((p) => p.token === token && p.status === 200), 30_000);
    expect(await waitUntil("the delivery recorded", async () => (await deliveryOf())?.status === "delivered" && deliveryOf())).toMatchObject({ attempts: 2 });
    expect((await http.get("/v1/devices", { token: user.token })).body.devices).toHaveLength(1);
  });
});

describe("feedback.new", () => {
  it("tells every member of the team about production feedback, not about development feedback", async () => {
    const { project, clientKey, app } = await projectWithApp(http, owner.token, owner.teamId);
    const send = (body: Record<string, unknown>) => http.post("/v1/feedback", { bundle_id: app.bundle_id, ...body }, { token: clientKey });
    await send({ message: "dev build feedback", is_dev: true });
    const sent = await send({ message: "The  export\nbutton does nothing", submitter_name: "Ana" });
    expect(sent.status).toBe(201);
    const notice = await waitUntil("the feedback notice", async () => (await list(owner, "?type=feedback.new")).body.notifications[0]);
    expect(notice).toMatchObject({
      title: `New feedback in ${project.name}`,
      body: "Ana: The export button does nothing",
      link: `${service.config.publicBaseUrl}/dashboard/feedback/${sent.body.id}`,
      team_id: owner.teamId,
    });
    // One consumer takes the facts in stream order: the development feedback, sent first, is already behind it.
    expect((await list(owner, "?type=feedback.new")).body.notifications).toHaveLength(1);
  });
});

describe("issue.new", () => {
  it("tells the team about new production issues of a detection window, listing up to three", async () => {
    const { project, clientKey, app } = await projectWithApp(http, owner.token, owner.teamId);
    const events = ["alpha", "beta", "gamma", "delta"].map((word) => anEvent({ level: "error", message: `${word} failed to load` }));
    await ingest(http, clientKey, { bundle_id: app.bundle_id, events: [anEvent({ level: "error", message: "dev only", is_dev: true })] });
    expect((await ingest(http, clientKey, { bundle_id: app.bundle_id, events })).body.accepted).toBe(4);
    const notice = await waitUntil("the issue notice", async () =>
      (await list(owner, "?type=issue.new")).body.notifications.find((n: any) => n.title.endsWith(project.name)),
    );
    expect(notice.title).toBe(`4 new issues in ${project.name}`);
    expect(notice.body.split("\n")).toHaveLength(4);
    expect(notice.body).toMatch(/^New: /);
    expect(notice.body).toMatch(/\nand 1 more$/);
    expect(notice.body).not.toContain("dev only");
    expect(notice.link).toBe(`${service.config.publicBaseUrl}/dashboard/issues?project_id=${project.id}`);
  });
});

describe("replay notifications", () => {
  it("rebuilds identical rows", async () => {
    const snapshot = async () => ({
      notifications: await service.pool.any(sql.unsafe`select * from notifications order by id`),
      deliveries: await service.pool.any(sql.unsafe`select * from notification_deliveries order by notification_id, channel, device_key`),
      devices: await service.pool.any(sql.unsafe`select * from devices order by id`),
    });
    // The dispatcher may still be recording deliveries of the tests above: wait until the rows hold still.
    let before = await snapshot();
    await waitUntil("the read model at rest", async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = await snapshot();
      const still = JSON.stringify(now) === JSON.stringify(before);
      before = now;
      return still;
    });
    expect(before.notifications.length).toBeGreaterThan(5);
    await replay(replayDeps(service), projectionNamed("notifications"));
    expect(await snapshot()).toEqual(before);
  });
});
