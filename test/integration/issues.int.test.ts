import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replay } from "../../projections/_runtime/replay.ts";
import { append } from "../../streams/append.ts";
import { lastMessageOn } from "../../streams/last-sequence.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { aFile, attachmentConfig, reservationFor, reserve } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { waitUntil } from "../support/processes.ts";
import { replayDeps } from "../support/replay.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * Issues through HTTP against real NATS and Postgres: the detector turning ingested errors into
 * issues within seconds, grouping (ids, `_error_type`, network paths, bursts), regression with
 * version edge cases, snooze reopen, every allowed and refused status move, lists, counts,
 * permissions, attachments in the detail, and `replay issues` rebuilding identical rows.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
let app: any;
let clientKey: string;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner(await attachmentConfig()));
  ({ project: { id: projectId }, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId));
});
afterAll(() => stopTestService(service));

const base = () => `/v1/projects/${projectId}/issues`;
/** A message nobody else in this file uses, so each test finds its own issues. */
const unique = (label: string) => `${label} ${randomUUID().slice(0, 8).replace(/\d/g, "x")}`;

async function sendErrors(...events: Record<string, unknown>[]): Promise<void> {
  const response = await ingest(http, clientKey, { bundle_id: app.bundle_id, events: events.map((fields) => anEvent({ level: "error", ...fields })) });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.accepted).toBe(events.length);
}

/** The project's issues whose title contains `text`, once `ready` holds for them. */
async function issuesWhen(text: string, ready: (issues: any[]) => boolean, timeoutMs = 10_000): Promise<any[]> {
  return waitUntil(
    `issues titled ${text}`,
    async () => {
      const response = await http.get(`${base()}?limit=200`, { token: owner.token });
      const issues = response.body.issues.filter((issue: any) => issue.title.includes(text));
      return ready(issues) ? issues : undefined;
    },
    timeoutMs,
    50,
  );
}

const oneIssue = async (text: string, ready: (issue: any) => boolean = () => true) => (await issuesWhen(text, (issues) => issues.length === 1 && ready(issues[0])))[0];
const patch = (issueId: string, body: Record<string, unknown>, token = owner.token) => http.patch(`${base()}/${issueId}`, body, { token });

describe("detection", () => {
  it("shows an error as an issue within 2 s of the ingest answer", async () => {
    const message = unique("Checkout failed for order 1234");
    const sessionId = randomUUID();
    await sendErrors({ message, session_id: sessionId, user_id: "u1", app_version: "1.0.0", sdk_name: "swift", sdk_version: "2.0.0", source_module: "Checkout" });
    const acked = Date.now();
    const issue = await oneIssue(message);
    expect(Date.now() - acked).toBeLessThan(2_000);
    expect(issue).toMatchObject({
      project_id: projectId,
      app_id: app.id,
      app_name: app.name,
      status: "new",
      title: message,
      source_module: "Checkout",
      is_dev: false,
      occurrence_count: 1,
      unique_user_count: 1,
      first_seen_sdk_version: "2.0.0",
      last_seen_sdk_version: "2.0.0",
      resolved_at_version: null,
      snoozed_at: null,
      fingerprints: [expect.any(String)],
    });
    const detail = await http.get(`${base()}/${issue.id}`, { token: owner.token });
    expect(detail.body).toMatchObject({
      id: issue.id,
      occurrences: [{ issue_id: issue.id, session_id: sessionId, user_id: "u1", app_version: "1.0.0", sdk_name: "swift", sdk_version: "2.0.0", environment: "ios" }],
      occurrence_cursor: null,
      occurrence_has_more: false,
      comments: [],
      attachments: [],
    });
  });

  it("ignores events below error level", async () => {
    const message = unique("Only a warning");
    await sendErrors({ message, level: "warn" }, { message: `${message} info`, level: "info" });
    const marker = unique("Marker error");
    await sendErrors({ message: marker });
    await oneIssue(marker);
    expect((await issuesWhen(message, () => true)).length).toBe(0);
  });

  it("groups the same error with different ids into one issue, one occurrence per session", async () => {
    const label = unique("User not found");
    const sessionA = randomUUID();
    await sendErrors(
      { message: `${label} 7f9c2a1e-3b4d-4c5e-9f00-112233445566 id 12`, session_id: sessionA, user_id: "a" },
      { message: `${label} 0a9c2a1e-3b4d-4c5e-9f00-112233445577 id 99`, session_id: sessionA, user_id: "a" },
    );
    await sendErrors({ message: `${label} 1b9c2a1e-3b4d-4c5e-9f00-112233445588 id 5`, session_id: randomUUID(), user_id: "b", sdk_version: "2.1.0" });
    await sendErrors({ message: `${label} 2c9c2a1e-3b4d-4c5e-9f00-112233445599 id 6`, session_id: randomUUID(), user_id: "b" });
    const issue = await oneIssue(label, (found) => found.occurrence_count === 3);
    expect(issue).toMatchObject({ unique_user_count: 2, fingerprints: [expect.any(String)] });
  });

  it("splits one call site by _error_type", async () => {
    const message = unique("Save failed");
    await sendErrors({ message, custom_attributes: { _error_type: "Timeout" } });
    await sendErrors({ message, custom_attributes: { _error_type: "PermissionDenied" } });
    await sendErrors({ message, custom_attributes: { _error_type: "Timeout" } });
    const issues = await issuesWhen(message, (found) => found.length === 2 && found.reduce((sum, issue) => sum + issue.occurrence_count, 0) === 3);
    expect(issues.map((issue) => issue.occurrence_count).sort()).toEqual([1, 2]);
  });

  it("groups network errors by method, host and templated path", async () => {
    const host = `${unique("api").replace(" ", "-")}.example.com`;
    const request = (method: string, path: string) => ({ message: "sdk:network_request", custom_attributes: { _http_method: method, _http_url: `https://${host}${path}` } });
    await sendErrors(request("GET", "/users/1?x=1"));
    await sendErrors(request("GET", "/users/2"), { ...request("GET", "/users/2"), session_id: randomUUID() });
    await sendErrors(request("POST", "/users/3"));
    const issues = await issuesWhen(host, (found) => found.length === 2 && found.some((issue) => issue.occurrence_count === 3));
    expect(issues.map((issue) => issue.title).sort()).toEqual([`sdk:network_request GET ${host}/users/:id`, `sdk:network_request POST ${host}/users/:id`]);
  });

  it("aliases a session's errors within 5 s of its first into one issue, and not later ones", async () => {
    const first = unique("Burst first");
    const second = unique("Burst second");
    const late = unique("Burst late");
    const sessionId = randomUUID();
    const t0 = Date.now() - 60_000;
    await sendErrors({ message: first, session_id: sessionId, timestamp: new Date(t0).toISOString() });
    await oneIssue(first);
    await sendErrors(
      { message: second, session_id: sessionId, timestamp: new Date(t0 + 2_000).toISOString() },
      { message: late, session_id: sessionId, timestamp: new Date(t0 + 9_000).toISOString() },
    );
    const lateIssue = await oneIssue(late);
    const burst = await oneIssue(first, (issue) => issue.fingerprints.length === 2);
    expect(burst.occurrence_count).toBe(1);
    expect(lateIssue.fingerprints).toHaveLength(1);
    expect((await issuesWhen(second, () => true)).length).toBe(0);
    // The aliased fingerprint goes to the burst's issue in any session from now on.
    await sendErrors({ message: second, session_id: randomUUID() });
    await oneIssue(first, (issue) => issue.occurrence_count === 2);
  });

  it("decides a redelivered ingest message again without recording anything twice", async () => {
    const message = unique("Redelivered failure");
    await sendErrors({ message, session_id: randomUUID(), user_id: "u-redelivered" });
    const first = await oneIssue(message);
    // Past the stream's dedup window a crash before the detector's ack brings the message back:
    // the same payload again, under a new message id and without the ingest header.
    const subject = service.log.names.ingestSubject(projectId, app.id);
    const stored = await lastMessageOn(service.log, service.log.names.stream("INGEST"), subject);
    await append(service.log, subject, stored!.data, { msgId: randomUUID() });
    // The detector reads in stream order: once a later error is an issue, the repeat was decided.
    const marker = unique("After the redelivery");
    await sendErrors({ message: marker, session_id: randomUUID() });
    await oneIssue(marker);
    const again = (await http.get(`${base()}/${first.id}`, { token: owner.token })).body;
    expect(again).toMatchObject({ occurrence_count: 1, unique_user_count: 1, status: "new", updated_at: first.updated_at });
    expect(again.occurrences).toHaveLength(1);
  });

  it("keeps dev and production apart", async () => {
    const message = unique("Dev or prod");
    await sendErrors({ message, is_dev: true }, { message, is_dev: false, session_id: randomUUID() });
    const issues = await issuesWhen(message, (found) => found.length === 2);
    expect(issues.map((issue) => issue.is_dev).sort()).toEqual([false, true]);
    const production = await http.get(`/v1/issues?project_id=${projectId}&limit=200`, { token: owner.token });
    expect(production.body.issues.filter((issue: any) => issue.title === message).map((issue: any) => issue.is_dev)).toEqual([false]);
    const dev = await http.get(`/v1/issues?project_id=${projectId}&is_dev=true&data_mode=production&limit=200`, { token: owner.token });
    expect(dev.body.issues.filter((issue: any) => issue.title === message).map((issue: any) => issue.is_dev)).toEqual([true]);
  });
});

describe("regression and snooze", () => {
  it("regresses a resolved issue only on a strictly newer app version", async () => {
    const message = unique("Regression check");
    await sendErrors({ message, app_version: "1.2.3 (100)" });
    const issue = await oneIssue(message);
    expect((await patch(issue.id, { status: "resolved", resolved_at_version: "v1.2.3" })).body).toMatchObject({ status: "resolved", resolved_at_version: "v1.2.3" });
    let occurrences = 1;
    for (const version of ["1.2.3", "1.2.3 (200)", "1.2.2", "1.2.3-beta.4", "not-a-version"]) {
      await sendErrors({ message, app_version: version, session_id: randomUUID() });
      occurrences += 1;
      const seen = await oneIssue(message, (found) => found.occurrence_count === occurrences);
      expect(seen.status, version).toBe("resolved");
    }
    await sendErrors({ message, app_version: "1.2.4", session_id: randomUUID() });
    await oneIssue(message, (found) => found.status === "regressed" && found.resolved_at_version === "v1.2.3");
  });

  it("reopens a snoozed issue on a new occurrence, clearing snoozed_at", async () => {
    const message = unique("Snoozed error");
    await sendErrors({ message });
    const issue = await oneIssue(message);
    const snoozed = await patch(issue.id, { status: "snoozed" });
    expect(snoozed.body).toMatchObject({ status: "snoozed", snoozed_at: expect.any(String) });
    await sendErrors({ message, session_id: randomUUID() });
    await oneIssue(message, (found) => found.status === "new" && found.snoozed_at === null && found.occurrence_count === 2);
  });

  it("never changes a silenced issue by itself", async () => {
    const message = unique("Silenced error");
    await sendErrors({ message, app_version: "1.0" });
    const issue = await oneIssue(message);
    expect((await patch(issue.id, { status: "silenced" })).status).toBe(200);
    await sendErrors({ message, app_version: "9.0", session_id: randomUUID() });
    expect((await oneIssue(message, (found) => found.occurrence_count === 2)).status).toBe("silenced");
  });
});

describe("status moves", () => {
  const ALLOWED: Record<string, string[]> = {
    new: ["in_progress", "resolved", "silenced", "snoozed"],
    in_progress: ["new", "resolved", "silenced", "snoozed"],
    resolved: ["new", "silenced", "snoozed"],
    silenced: ["new", "in_progress", "resolved", "snoozed"],
    snoozed: ["new", "in_progress", "resolved", "silenced"],
    regressed: ["in_progress", "resolved", "silenced", "snoozed"],
  };
  const TARGETS = ["new", "in_progress", "resolved", "silenced", "snoozed"];
  const bodyFor = (status: string) => (status === "resolved" ? { status, resolved_at_version: "1.0.0" } : { status });

  /** Brings the issue to `status` by allowed moves (every status reaches snoozed, and snoozed every other manual one). */
  async function bringTo(issueId: string, current: string, status: string): Promise<void> {
    if (current === status) return;
    if (!ALLOWED[current]!.includes(status)) {
      expect((await patch(issueId, bodyFor("snoozed"))).status).toBe(200);
      if (status === "snoozed") return;
    }
    expect((await patch(issueId, bodyFor(status))).status).toBe(200);
  }

  it("allows every move of the table and refuses every other with 400", async () => {
    const message = unique("Transitions");
    await sendErrors({ message });
    const issue = await oneIssue(message);
    let current = "new";
    for (const from of ["new", "in_progress", "resolved", "silenced", "snoozed"]) {
      for (const to of TARGETS) {
        await bringTo(issue.id, current, from);
        current = from;
        const response = await patch(issue.id, bodyFor(to));
        if (ALLOWED[from]!.includes(to)) {
          expect(response.status, `${from} → ${to}`).toBe(200);
          expect(response.body.status).toBe(to);
          expect(response.body.snoozed_at === null, `${from} → ${to} snoozed_at`).toBe(to !== "snoozed");
          if (to === "new") expect(response.body.resolved_at_version).toBeNull();
          if (to === "resolved") expect(response.body.resolved_at_version).toBe("1.0.0");
          current = to;
        } else {
          expect(response, `${from} → ${to}`).toMatchObject({ status: 400, body: anError });
        }
      }
    }
  });

  it("allows the moves out of regressed and refuses regressed → new", async () => {
    const message = unique("Regressed moves");
    await sendErrors({ message, app_version: "1.0.0" });
    const issue = await oneIssue(message);
    let version = 1;
    let current = "new";
    for (const to of TARGETS) {
      if (current !== "new" && current !== "in_progress") await bringTo(issue.id, current, "in_progress");
      expect((await patch(issue.id, { status: "resolved", resolved_at_version: `${version}.0.0` })).status).toBe(200);
      version += 1;
      await sendErrors({ message, app_version: `${version}.0.0`, session_id: randomUUID() });
      await oneIssue(message, (found) => found.status === "regressed");
      const response = await patch(issue.id, bodyFor(to));
      expect(response.status, `regressed → ${to}`).toBe(ALLOWED.regressed!.includes(to) ? 200 : 400);
      current = response.status === 200 ? to : "regressed";
    }
  });

  it("refuses resolving without a version, regressed as a target and unknown issues", async () => {
    const message = unique("Refusals");
    await sendErrors({ message });
    const issue = await oneIssue(message);
    expect(await patch(issue.id, { status: "resolved" })).toMatchObject({ status: 400, body: { error: expect.stringContaining("resolved_at_version") } });
    expect((await patch(issue.id, { status: "resolved", resolved_at_version: "" })).status).toBe(400);
    expect((await patch(issue.id, { status: "regressed" })).status).toBe(400);
    expect((await patch(randomUUID(), { status: "in_progress" })).status).toBe(404);
    expect((await http.get(`${base()}/${randomUUID()}`, { token: owner.token })).status).toBe(404);
  });

  it("audits every move", async () => {
    const message = unique("Audited");
    await sendErrors({ message });
    const issue = await oneIssue(message);
    expect((await patch(issue.id, { status: "in_progress" })).status).toBe(200);
    const logs = await http.get(`/v1/teams/${owner.teamId}/audit-logs?limit=200`, { token: owner.token });
    expect(logs.body.audit_logs).toContainEqual(
      expect.objectContaining({ action: "update", resource_type: "issue", resource_id: issue.id, actor_type: "user", changes: { status: { before: "new", after: "in_progress" } } }),
    );
  });
});

describe("lists, counts, access and attachments", () => {
  it("pages the project list by cursor, newest last seen first", async () => {
    const label = unique("Paged");
    for (let i = 0; i < 3; i += 1) await sendErrors({ message: `${label} ${"abc"[i]}`, timestamp: new Date(Date.now() - (3 - i) * 1_000).toISOString() });
    await issuesWhen(label, (found) => found.length === 3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: any = await http.get(`${base()}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { token: owner.token });
      seen.push(...response.body.issues.map((issue: any) => issue.id));
      cursor = response.body.cursor;
      expect(response.body.has_more).toBe(cursor !== null);
    } while (cursor);
    const all = (await http.get(`${base()}?limit=200`, { token: owner.token })).body.issues;
    expect(seen).toEqual(all.map((issue: any) => issue.id));
    const lastSeen = all.map((issue: any) => issue.last_seen_at);
    expect([...lastSeen].sort().reverse()).toEqual(lastSeen);
  });

  it("counts per status in one answer, with open = new + in_progress + regressed", async () => {
    const list = (await http.get(`/v1/issues?project_id=${projectId}&data_mode=all&limit=200`, { token: owner.token })).body.issues;
    const count = await http.get(`/v1/issues/count?project_id=${projectId}&data_mode=all`, { token: owner.token });
    const expected: Record<string, number> = { new: 0, in_progress: 0, regressed: 0, resolved: 0, silenced: 0, snoozed: 0 };
    for (const issue of list) expected[issue.status]! += 1;
    expect(count.body).toEqual({ ...expected, open: expected.new! + expected.in_progress! + expected.regressed! });
    expect(list[0].project_name).toEqual(expect.any(String));
    expect((await http.get(`/v1/issues/count?team_id=${randomUUID()}`, { token: owner.token })).body.open).toBe(0);
  });

  it("lets agent keys read with issues:read and write with issues:write only", async () => {
    const keyWith = async (permissions: string[]) =>
      (await http.post("/v1/auth/keys", { name: "agent", key_type: "agent", team_id: owner.teamId, permissions }, { token: owner.token })).body.api_key.secret as string;
    const reader = await keyWith(["issues:read"]);
    const message = unique("Agent visible");
    await sendErrors({ message });
    const issue = await oneIssue(message);
    expect((await http.get(`${base()}/${issue.id}`, { token: reader })).status).toBe(200);
    expect((await http.get(`/v1/issues/count`, { token: reader })).status).toBe(200);
    expect((await patch(issue.id, { status: "in_progress" }, reader)).status).toBe(403);
    const writer = await keyWith(["issues:read", "issues:write"]);
    expect((await patch(issue.id, { status: "in_progress" }, writer)).status).toBe(200);
    const other = await keyWith(["events:read"]);
    expect((await http.get(base(), { token: other })).status).toBe(403);
  });

  it("shows the attachments of the issue's occurrence events in the detail and behind GET /v1/attachments?issue_id=", async () => {
    const message = unique("With attachment");
    const clientEventId = randomUUID();
    await sendErrors({ message, client_event_id: clientEventId });
    const issue = await oneIssue(message);
    const reservation = await reserve(http, clientKey, { ...reservationFor(aFile(10), { client_event_id: clientEventId }), bundle_id: app.bundle_id });
    expect(reservation.status, JSON.stringify(reservation.body)).toBe(201);
    const detail = await http.get(`${base()}/${issue.id}`, { token: owner.token });
    expect(detail.body.attachments).toEqual([expect.objectContaining({ id: reservation.body.attachment_id, event_id: detail.body.occurrences[0].event_id, original_filename: "screen.png" })]);
    const listed = await http.get(`/v1/attachments?issue_id=${issue.id}`, { token: owner.token });
    expect(listed.body.attachments).toEqual([expect.objectContaining({ id: reservation.body.attachment_id, issue_id: issue.id })]);
  });
});

describe("comments", () => {
  it("records the author, edits by the author only, deletes by the author or an admin", async () => {
    const message = unique("Commented");
    await sendErrors({ message });
    const issue = await oneIssue(message);
    const comments = `${base()}/${issue.id}/comments`;
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const agent = (await http.post("/v1/auth/keys", { name: "triage bot", key_type: "agent", team_id: owner.teamId, permissions: ["issues:read", "issues:write"] }, { token: owner.token })).body.api_key.secret;

    const byOwner = await http.post(comments, { body: "  Looks like **the cache**  " }, { token: owner.token });
    expect(byOwner).toMatchObject({ status: 201, body: { issue_id: issue.id, author_type: "user", author_id: owner.userId, body: "Looks like **the cache**" } });
    const byMember = (await http.post(comments, { body: "Seen it too" }, { token: member.token })).body;
    const byKey = await http.post(comments, { body: "Linked to #12" }, { token: agent });
    expect(byKey.body).toMatchObject({ author_type: "api_key", author_name: "triage bot" });
    expect((await http.post(comments, { body: "   " }, { token: owner.token })).status).toBe(400);

    expect((await http.patch(`${comments}/${byOwner.body.id}`, { body: "x" }, { token: member.token })).status).toBe(403);
    expect((await http.patch(`${comments}/${byKey.body.id}`, { body: "x" }, { token: owner.token })).status).toBe(403);
    const edited = await http.patch(`${comments}/${byKey.body.id}`, { body: "Linked to #13" }, { token: agent });
    expect(edited).toMatchObject({ status: 200, body: { body: "Linked to #13" } });
    expect(Date.parse(edited.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(edited.body.created_at));

    expect((await http.delete(`${comments}/${byOwner.body.id}`, { token: member.token })).status).toBe(403);
    expect(await http.delete(`${comments}/${byMember.id}`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.delete(`${comments}/${byKey.body.id}`, { token: agent })).status).toBe(200);
    expect((await http.patch(`${comments}/${byKey.body.id}`, { body: "again" }, { token: agent })).status).toBe(404);
    expect((await http.delete(`${comments}/${randomUUID()}`, { token: owner.token })).status).toBe(404);

    const listed = await http.get(comments, { token: owner.token });
    expect(listed.body.comments.map((comment: any) => comment.id)).toEqual([byOwner.body.id]);
    expect((await http.get(`${base()}/${issue.id}`, { token: owner.token })).body.comments).toEqual(listed.body.comments);
    const logs = await http.get(`/v1/teams/${owner.teamId}/audit-logs?limit=200`, { token: owner.token });
    const kinds = logs.body.audit_logs.filter((entry: any) => entry.resource_id === issue.id).map((entry: any) => entry.action);
    expect(kinds.sort()).toEqual(["create", "create", "create", "delete", "delete", "update"]);
  });
});

describe("merge", () => {
  it("moves fingerprints, occurrences deduplicated by session and comments, and deletes the source", async () => {
    const targetMessage = unique("Merge target");
    const sourceMessage = unique("Merge source");
    const shared = randomUUID();
    const t0 = Date.now() - 120_000;
    await sendErrors({ message: targetMessage, session_id: shared, user_id: "a", timestamp: new Date(t0).toISOString() });
    await sendErrors({ message: sourceMessage, session_id: shared, user_id: "a", timestamp: new Date(t0 + 60_000).toISOString() });
    await sendErrors({ message: sourceMessage, session_id: randomUUID(), user_id: "b", sdk_version: "9.9.9", timestamp: new Date(t0 + 90_000).toISOString() });
    const target = await oneIssue(targetMessage);
    const source = await oneIssue(sourceMessage, (issue) => issue.occurrence_count === 2);
    const comment = (await http.post(`${base()}/${source.id}/comments`, { body: "from the source" }, { token: owner.token })).body;

    expect(await http.post(`${base()}/${target.id}/merge`, { source_issue_id: target.id }, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect((await http.post(`${base()}/${target.id}/merge`, { source_issue_id: randomUUID() }, { token: owner.token })).status).toBe(400);
    const merged = await http.post(`${base()}/${target.id}/merge`, { source_issue_id: source.id }, { token: owner.token });
    expect(merged.body).toMatchObject({ id: target.id, occurrence_count: 2, unique_user_count: 2, last_seen_sdk_version: "9.9.9" });
    expect(merged.body.fingerprints.sort()).toEqual([...target.fingerprints, ...source.fingerprints].sort());
    expect((await http.get(`${base()}/${source.id}`, { token: owner.token })).status).toBe(404);
    const detail = (await http.get(`${base()}/${target.id}`, { token: owner.token })).body;
    expect(detail.comments.map((entry: any) => entry.id)).toEqual([comment.id]);
    expect(new Set(detail.occurrences.map((entry: any) => entry.session_id)).size).toBe(2);

    // The source's fingerprint now lands on the target.
    await sendErrors({ message: sourceMessage, session_id: randomUUID() });
    await oneIssue(targetMessage, (issue) => issue.occurrence_count === 3);
    expect((await issuesWhen(sourceMessage, () => true)).length).toBe(0);
  });

  it("refuses a source of another project", async () => {
    const other = await projectWithApp(http, owner.token, owner.teamId);
    const message = unique("Foreign source");
    const response = await ingest(http, other.clientKey, { bundle_id: other.app.bundle_id, events: [anEvent({ level: "error", message })] });
    expect(response.status).toBe(200);
    const foreign = await waitUntil("the foreign issue", async () => (await http.get(`/v1/projects/${other.project.id}/issues`, { token: owner.token })).body.issues[0]);
    const local = unique("Local target");
    await sendErrors({ message: local });
    const target = await oneIssue(local);
    expect((await http.post(`${base()}/${target.id}/merge`, { source_issue_id: foreign.id }, { token: owner.token })).status).toBe(400);
  });
});

describe("replay", () => {
  it("rebuilds identical rows", async () => {
    const admin = new pg.Client({ connectionString: service.databaseUrl });
    await admin.connect();
    try {
      const snapshot = async () => {
        const rows: Record<string, string[]> = {};
        for (const table of ["issues", "issue_fingerprints", "issue_occurrences", "issue_users", "issue_comments", "issue_versions"]) {
          rows[table] = (await admin.query<{ row: string }>(`select to_jsonb(t)::text as row from public.${table} t`)).rows.map((row) => row.row).sort();
        }
        return rows;
      };
      const before = await snapshot();
      expect(before.issues!.length).toBeGreaterThan(10);
      await replay(replayDeps(service), projectionNamed("issues"));
      expect(await snapshot()).toEqual(before);
    } finally {
      await admin.end();
    }
  });
});
