import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identity, ingestSettled } from "../support/app-users.ts";
import { aFile, attachmentConfig, expectStatus, reservationFor, reserve, reserveAndUpload } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Reading and deleting attachments through HTTP: list filters and cursor paging, the event link
 * whichever of event and attachment comes first, a claim moving an anonymous id's files, and who
 * may delete.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let agentKey: string;
let projectId: string;
let app: any;
let clientKey: string;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner(await attachmentConfig()));
  ({ project: { id: projectId }, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId));
  agentKey = (await http.post("/v1/auth/default-agent-key", { team_id: owner.teamId }, { token: owner.token })).body.secret;
});
afterAll(() => stopTestService(service));

const list = (query: string, token = owner.token) => http.get(`/v1/attachments?${query}`, { token });

/** Every page of `query` with `limit`, following the cursor; the ids in the order served. */
async function walk(query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const response: any = await list(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expectStatus(response, 200);
    ids.push(...response.body.attachments.map((attachment: any) => attachment.id));
    expect(response.body.has_more).toBe(response.body.cursor !== null);
    cursor = response.body.cursor;
  } while (cursor !== null);
  return ids;
}

/** Ingests one event of the app and returns it as the events list shows it. */
async function ingestedEvent(fields: Record<string, unknown>): Promise<any> {
  const event = anEvent(fields);
  expectStatus(await ingest(http, clientKey, { bundle_id: app.bundle_id, events: [event] }), 200);
  const [stored] = await eventsWhen(http, owner.token, `app_id=${app.id}&data_mode=all&session_id=${event.session_id}`, (events) => events.length === 1);
  return stored;
}

describe("the list", () => {
  it("pages newest first through every filter's matches, without deleted ones", async () => {
    const { project, clientKey: otherKey } = await projectWithApp(http, owner.token, owner.teamId);
    const eventClientId = randomUUID();
    const mine: string[] = [];
    for (let index = 0; index < 7; index += 1) mine.push(await reserveAndUpload(http, otherKey, aFile(10), { client_event_id: index < 4 ? eventClientId : randomUUID() }));
    const deleted = (await reserve(http, otherKey, reservationFor(aFile(10), { client_event_id: eventClientId }))).body.attachment_id;
    expectStatus(await http.delete(`/v1/attachments/${deleted}`, { token: owner.token }), 200);

    const newestFirst = [...mine].reverse();
    expect(await walk(`project_id=${project.id}`, 200)).toEqual(newestFirst);
    expect(await walk(`project_id=${project.id}`, 2)).toEqual(newestFirst);
    expect(await walk(`project_id=${project.id}&event_client_id=${eventClientId}`, 3)).toEqual(newestFirst.slice(3));
    expect((await list(`project_id=${project.id}&issue_id=${randomUUID()}`)).body).toEqual({ attachments: [], cursor: null, has_more: false });
    expect((await list(`project_id=${project.id}`, agentKey)).body.attachments).toHaveLength(7);
    expect((await list("limit=1000")).body.attachments.length).toBeGreaterThanOrEqual(7);
  });

  it("shows nothing of other teams, and checks its input", async () => {
    const stranger = await signIn(http, service.outbox);
    await reserveAndUpload(http, clientKey, aFile(10));
    expect((await list(`project_id=${projectId}`, stranger.token)).body).toEqual({ attachments: [], cursor: null, has_more: false });
    expect((await list("cursor=yesterday")).status).toBe(400);
    expect((await list("event_id=nope")).status).toBe(400);
    expect((await list("", clientKey)).status).toBe(403);
  });
});

describe("the event link", () => {
  it("links an attachment reserved before its event arrives, and one reserved after", async () => {
    const early = randomUUID();
    const before = await reserveAndUpload(http, clientKey, aFile(30), { client_event_id: early, original_filename: "before.png" });
    const first = await ingestedEvent({ client_event_id: early });
    const late = await ingestedEvent({ client_event_id: randomUUID() });
    const after = (await reserve(http, clientKey, reservationFor(aFile(40), { client_event_id: late.client_event_id, original_filename: "after.txt", content_type: "text/plain" }))).body.attachment_id;

    const detail = await http.get(`/v1/events/${first.id}`, { token: owner.token });
    expect(detail.body.attachments).toEqual([{ id: before, original_filename: "before.png", content_type: "image/png", size_bytes: 30, uploaded_at: expect.any(String) }]);
    const lateDetail = await http.get(`/v1/events/${late.id}`, { token: owner.token });
    expect(lateDetail.body.attachments).toEqual([{ id: after, original_filename: "after.txt", content_type: "text/plain", size_bytes: 40, uploaded_at: null }]);
    expect((await http.get(`/v1/events/${(await ingestedEvent({ client_event_id: randomUUID() })).id}`, { token: owner.token })).body.attachments).toEqual([]);

    expect((await http.get(`/v1/attachments/${before}`, { token: owner.token })).body.event_id).toBe(first.id);
    expect((await list(`event_id=${late.id}`)).body.attachments.map((attachment: any) => attachment.id)).toEqual([after]);
    // Deleted attachments leave the event.
    expectStatus(await http.delete(`/v1/attachments/${after}`, { token: owner.token }), 200);
    expect((await http.get(`/v1/events/${late.id}`, { token: owner.token })).body.attachments).toEqual([]);
  });
});

describe("claims", () => {
  it("moves an anonymous id's attachments and their usage to the user who claims it", async () => {
    const anonymous = `svc_anon_${randomBytes(6).toString("hex")}`;
    const known = `user-${randomBytes(4).toString("hex")}`;
    const id = await reserveAndUpload(http, clientKey, aFile(64), { user_id: anonymous });
    await reserveAndUpload(http, clientKey, aFile(36), { user_id: known });
    expect((await http.get(`/v1/attachments/${id}`, { token: owner.token })).body.user_id).toBe(anonymous);

    expectStatus(await identity(http, clientKey, "/claim", { anonymous_id: anonymous, user_id: known }), 200);
    await ingestSettled(service);
    expect((await http.get(`/v1/attachments/${id}`, { token: owner.token })).body.user_id).toBe(known);
    expect((await http.get(`/v1/projects/${projectId}/attachment-usage?user_id=${known}`, { token: owner.token })).body).toMatchObject({ user_used_bytes: 100, user_file_count: 2 });
    expect((await http.get(`/v1/projects/${projectId}/attachment-usage?user_id=${anonymous}`, { token: owner.token })).body).toMatchObject({ user_used_bytes: 100 });
  });
});

describe("deleting", () => {
  it("lets members and the app's own key delete; agent keys 403, other teams and other apps 404", async () => {
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const stranger = await signIn(http, service.outbox);
    const other = await projectWithApp(http, owner.token, owner.teamId);
    const first = await reserveAndUpload(http, clientKey, aFile(10));
    const second = await reserveAndUpload(http, clientKey, aFile(10));

    expect(await http.delete(`/v1/attachments/${first}`, { token: agentKey })).toMatchObject({ status: 403, body: anError });
    expect((await http.delete(`/v1/attachments/${first}`, { token: stranger.token })).status).toBe(404);
    expect((await http.delete(`/v1/attachments/${first}`, { token: other.clientKey })).status).toBe(404);
    expect(await http.delete(`/v1/attachments/${first}`, { token: member.token })).toMatchObject({ status: 200, body: { ok: true } });
    expect((await http.delete(`/v1/attachments/${first}`, { token: member.token })).status).toBe(404);
    expect((await http.delete(`/v1/attachments/${second}`, { token: clientKey })).status).toBe(200);
    expect((await http.delete(`/v1/attachments/${randomUUID()}`, { token: owner.token })).status).toBe(404);

    const audit = await http.get(`/v1/teams/${owner.teamId}/audit-logs?resource_type=attachment`, { token: owner.token });
    expect(audit.body.audit_logs.map((entry: any) => [entry.action, entry.resource_id])).toEqual(expect.arrayContaining([["delete", first], ["delete", second]]));
  });
});
