import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { identity } from "../support/app-users.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anError, spendUntilRefused, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { replayDeps } from "../support/replay.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Feedback through HTTP: an SDK's submission and its refusals, the project's list and detail,
 * status moves, comment rules, soft deletion, agent key permissions, a claim moving an anonymous
 * id's feedback, and `replay feedback` rebuilding identical rows.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
let app: any;
let clientKey: string;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  ({ project: { id: projectId }, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId));
});
afterAll(() => stopTestService(service));

const submit = (body: Record<string, unknown>, key = clientKey) => http.post("/v1/feedback", { bundle_id: app.bundle_id, message: "It crashes", ...body }, { token: key });
const base = () => `/v1/projects/${projectId}/feedback`;

async function submitted(body: Record<string, unknown> = {}): Promise<string> {
  const response = await submit(body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

async function agentKeyWith(permissions: string[]): Promise<string> {
  const response = await http.post("/v1/auth/keys", { name: "agent", key_type: "agent", team_id: owner.teamId, permissions }, { token: owner.token });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.api_key.secret;
}

describe("submitting", () => {
  it("stores a submission with its fields, trimmed", async () => {
    const sessionId = randomUUID();
    const response = await submit({
      message: "  The export button does nothing  ",
      session_id: sessionId,
      user_id: "user-1",
      submitter_name: "Ada",
      submitter_email: "Ada@Example.com",
      environment: "ipados",
      os_version: "18.1",
      app_version: "2.4.0",
      sdk_name: "swift",
      sdk_version: "1.9.2",
      device_model: "iPad13,4",
    });
    expect(response).toMatchObject({ status: 201, body: { id: expect.any(String), created_at: expect.any(String) } });
    const detail = await http.get(`${base()}/${response.body.id}`, { token: owner.token });
    expect(detail.body).toMatchObject({
      id: response.body.id,
      app_id: app.id,
      message: "The export button does nothing",
      status: "new",
      session_id: sessionId,
      user_id: "user-1",
      submitter_email: "ada@example.com",
      environment: "ipados",
      is_dev: false,
      comments: [],
      created_at: response.body.created_at,
    });
  });

  it("refuses a bad bundle, message, email or environment", async () => {
    expect(await submit({ bundle_id: "com.other.app" })).toMatchObject({ status: 403, body: anError });
    expect(await submit({ bundle_id: undefined })).toMatchObject({ status: 400, body: anError });
    expect(await submit({ message: "   " })).toMatchObject({ status: 400, body: { error: expect.stringContaining("message") } });
    expect(await submit({ message: "x".repeat(4001) })).toMatchObject({ status: 400, body: { error: expect.stringContaining("message") } });
    expect((await submit({ message: "x".repeat(4000) })).status).toBe(201);
    expect(await submit({ submitter_email: "not-an-email" })).toMatchObject({ status: 400, body: { error: expect.stringContaining("submitter_email") } });
    expect(await submit({ environment: "android" })).toMatchObject({ status: 400, body: { error: expect.stringContaining("environment") } });
    expect(await submit({ session_id: "nope" })).toMatchObject({ status: 400, body: { error: expect.stringContaining("session_id") } });
    expect((await http.post("/v1/feedback", { message: "x" }, { token: owner.token })).status).toBe(403);
    expect((await http.post("/v1/feedback", { message: "x" })).status).toBe(401);
  });
});

describe("the rate limit", () => {
  it("spends a token of the client key per submission, as ingest does", async () => {
    const own = await projectWithApp(http, owner.token, owner.teamId);
    // Refused bodies still spend tokens: the key is checked before the body is read.
    const { refused, sent } = await spendUntilRefused(() => http.post("/v1/feedback", { message: "" }, { token: own.clientKey }), [400]);
    expect(refused).toMatchObject({ status: 429, body: anError });
    expect(refused!.headers.get("retry-after")).toBe("1");
    expect(sent).toBeGreaterThanOrEqual(100);
  });
});

describe("reading and triage", () => {
  it("lists newest first through filters and cursor pages", async () => {
    const other = await projectWithApp(http, owner.token, owner.teamId, {}, {});
    const secondApp = (await http.post("/v1/apps", { name: "Web", platform: "web", project_id: other.project.id, bundle_id: "example.com" }, { token: owner.token })).body;
    const send = (key: string, bundle: string, body: Record<string, unknown> = {}) =>
      http.post("/v1/feedback", { bundle_id: bundle, message: "m", ...body }, { token: key }).then((response) => response.body.id as string);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push(await send(other.clientKey, other.app.bundle_id));
    const web = await send(secondApp.client_secret, "example.com");
    const dev = await send(other.clientKey, other.app.bundle_id, { is_dev: true });
    const list = (query: string) => http.get(`/v1/projects/${other.project.id}/feedback?${query}`, { token: owner.token });

    const all = await list("");
    expect(all.body.feedback.map((row: any) => row.id)).toEqual([web, ...[...ids].reverse()]);
    expect(all.body.feedback.find((row: any) => row.id === web).environment).toBe("web");
    expect((await list("data_mode=development")).body.feedback.map((row: any) => row.id)).toEqual([dev]);
    expect((await list("data_mode=all")).body.feedback).toHaveLength(7);
    expect((await list(`app_id=${secondApp.id}`)).body.feedback.map((row: any) => row.id)).toEqual([web]);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const response: any = await list(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      paged.push(...response.body.feedback.map((row: any) => row.id));
      expect(response.body.has_more).toBe(response.body.cursor !== null);
      cursor = response.body.cursor;
    } while (cursor !== null);
    expect(paged).toEqual([web, ...[...ids].reverse()]);

    expect((await http.patch(`/v1/projects/${other.project.id}/feedback/${ids[0]}`, { status: "in_review" }, { token: owner.token })).body.status).toBe("in_review");
    expect((await list("status=in_review")).body.feedback.map((row: any) => row.id)).toEqual([ids[0]]);
    expect((await list("status=closed")).status).toBe(400);
    expect((await list("cursor=yesterday")).status).toBe(400);
  });

  it("moves between statuses freely, audits it, and hides deleted feedback", async () => {
    const id = await submitted();
    for (const status of ["addressed", "new", "dismissed", "in_review"]) {
      const moved = await http.patch(`${base()}/${id}`, { status }, { token: owner.token });
      expect(moved).toMatchObject({ status: 200, body: { id, status } });
    }
    expect((await http.patch(`${base()}/${id}`, { status: "closed" }, { token: owner.token })).status).toBe(400);

    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    expect(await http.delete(`${base()}/${id}`, { token: member.token })).toMatchObject({ status: 403, body: anError });
    expect(await http.delete(`${base()}/${id}`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get(`${base()}/${id}`, { token: owner.token })).status).toBe(404);
    expect((await http.patch(`${base()}/${id}`, { status: "new" }, { token: owner.token })).status).toBe(404);
    expect((await http.get(`${base()}?data_mode=all`, { token: owner.token })).body.feedback.map((row: any) => row.id)).not.toContain(id);

    const audit = await http.get(`/v1/teams/${owner.teamId}/audit-logs?resource_type=feedback`, { token: owner.token });
    const mine = audit.body.audit_logs.filter((entry: any) => entry.resource_id === id).map((entry: any) => entry.action);
    expect(mine.sort()).toEqual(["delete", "update", "update", "update", "update"]);
  });

  it("answers 404 to other teams and to unknown ids", async () => {
    const stranger = await signIn(http, service.outbox);
    const id = await submitted();
    expect((await http.get(`${base()}/${id}`, { token: stranger.token })).status).toBe(404);
    expect((await http.get(base(), { token: stranger.token })).status).toBe(404);
    expect((await http.get(`${base()}/${randomUUID()}`, { token: owner.token })).status).toBe(404);
  });
});

describe("comments", () => {
  it("records the author; only the author edits; the author or an admin deletes", async () => {
    const id = await submitted();
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const other = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const comments = `${base()}/${id}/comments`;

    const added = await http.post(comments, { body: "  Seen on 2.4.0 " }, { token: member.token });
    expect(added).toMatchObject({ status: 201, body: { feedback_id: id, author_type: "user", author_id: member.userId, body: "Seen on 2.4.0", edited_at: null } });
    const commentId = added.body.id;
    expect((await http.post(comments, { body: "" }, { token: member.token })).status).toBe(400);

    expect(await http.patch(`${comments}/${commentId}`, { body: "hijack" }, { token: other.token })).toMatchObject({ status: 403, body: anError });
    expect(await http.patch(`${comments}/${commentId}`, { body: "hijack" }, { token: owner.token })).toMatchObject({ status: 403, body: anError });
    const edited = await http.patch(`${comments}/${commentId}`, { body: "Fixed in 2.4.1" }, { token: member.token });
    expect(edited).toMatchObject({ status: 200, body: { id: commentId, body: "Fixed in 2.4.1", edited_at: expect.any(String) } });
    expect(await http.delete(`${comments}/${commentId}`, { token: other.token })).toMatchObject({ status: 403, body: anError });

    const second = (await http.post(comments, { body: "Me too" }, { token: other.token })).body.id;
    expect((await http.get(comments, { token: owner.token })).body.comments.map((comment: any) => comment.id)).toEqual([commentId, second]);
    expect((await http.get(`${base()}/${id}`, { token: owner.token })).body).toMatchObject({ comment_count: 2 });

    expect(await http.delete(`${comments}/${commentId}`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect(await http.delete(`${comments}/${second}`, { token: other.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.delete(`${comments}/${second}`, { token: other.token })).status).toBe(404);
    expect((await http.get(`${base()}/${id}`, { token: owner.token })).body).toMatchObject({ comments: [], comment_count: 0 });
  });
});

describe("agent keys", () => {
  it("need feedback:read to read and feedback:write to triage and comment", async () => {
    const id = await submitted();
    const reader = await agentKeyWith(["feedback:read"]);
    const writer = await agentKeyWith(["feedback:read", "feedback:write"]);
    const neither = await agentKeyWith(["events:read"]);

    expect(await http.get(base(), { token: neither })).toMatchObject({ status: 403, body: anError });
    expect((await http.get(`${base()}/${id}`, { token: neither })).status).toBe(403);
    expect((await http.get(`${base()}/${id}`, { token: reader })).status).toBe(200);
    expect((await http.patch(`${base()}/${id}`, { status: "addressed" }, { token: reader })).status).toBe(403);
    expect((await http.patch(`${base()}/${id}`, { status: "addressed" }, { token: writer })).status).toBe(200);

    const comment = await http.post(`${base()}/${id}/comments`, { body: "Triaged by the bot" }, { token: writer });
    expect(comment).toMatchObject({ status: 201, body: { author_type: "api_key", author_name: "agent" } });
    expect((await http.patch(`${base()}/${id}/comments/${comment.body.id}`, { body: "edited" }, { token: writer })).status).toBe(200);
    expect((await http.patch(`${base()}/${id}/comments/${comment.body.id}`, { body: "edited" }, { token: owner.token })).status).toBe(403);

    const fresh = (await http.post("/v1/auth/keys", { name: "default", key_type: "agent", team_id: owner.teamId }, { token: owner.token })).body.api_key;
    expect(fresh.permissions).toEqual(expect.arrayContaining(["feedback:read", "feedback:write"]));
  });
});

describe("claims and replay", () => {
  it("shows a claimed anonymous id's feedback under the claimer, and replay rebuilds identical rows", async () => {
    const anonymous = `svc_anon_${randomBytes(6).toString("hex")}`;
    const known = `user-${randomBytes(4).toString("hex")}`;
    const kept = await submitted({ user_id: anonymous });
    const removed = await submitted({ user_id: anonymous });
    expect((await http.delete(`${base()}/${removed}`, { token: owner.token })).status).toBe(200);

    expect((await identity(http, clientKey, "/claim", { anonymous_id: anonymous, user_id: known })).status).toBe(200);
    expect((await http.get(`${base()}/${kept}`, { token: owner.token })).body.user_id).toBe(known);
    const later = await submitted({ user_id: anonymous });
    expect((await http.get(`${base()}/${later}`, { token: owner.token })).body.user_id).toBe(known);
    await http.post(`${base()}/${kept}/comments`, { body: "thanks" }, { token: owner.token });

    const admin = new pg.Client({ connectionString: service.databaseUrl });
    await admin.connect();
    try {
      const snapshot = async () => {
        const rows: Record<string, string[]> = {};
        for (const table of ["feedback", "feedback_comments", "feedback_versions"]) {
          rows[table] = (await admin.query<{ row: string }>(`select to_jsonb(t)::text as row from public.${table} t`)).rows.map((row) => row.row).sort();
        }
        return rows;
      };
      const before = await snapshot();
      expect(before.feedback!.length).toBeGreaterThan(5);
      await replay(replayDeps(service), projectionNamed("feedback"));
      expect(await snapshot()).toEqual(before);
      expect((await http.get(`${base()}/${kept}`, { token: owner.token })).body).toMatchObject({ user_id: known, comment_count: 1 });
      expect((await http.get(`${base()}/${removed}`, { token: owner.token })).status).toBe(404);
    } finally {
      await admin.end();
    }
  });
});
