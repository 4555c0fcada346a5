import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { aFile, attachmentConfig, expectStatus, reservationFor, reserve, reserveAndUpload } from "../support/attachments.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anError, client, type Client } from "../support/http.ts";
import { startTestService, startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Attachment quotas through HTTP: the 413 answers per user and per project with their fields,
 * exact quotas under a burst of parallel reservations through two API instances, and the usage
 * route agreeing with what the quota check counts.
 */

let config: Config;
let service: TestService;
let second: TestService;
let http: Client;
let secondHttp: Client;
let owner: SignedIn;

beforeAll(async () => {
  config = await attachmentConfig();
  ({ service, http, owner } = await startWithOwner(config));
  // A second API instance on the same database and namespace: its writes race the first one's.
  second = await startTestService(config, ["api"]);
  secondHttp = client(second.baseUrl);
});
afterAll(async () => {
  await second.close();
  await stopTestService(service);
});

async function projectWithQuotas(quotas: { attachment_user_quota_bytes?: number | null; attachment_project_quota_bytes?: number | null }) {
  const created = await projectWithApp(http, owner.token, owner.teamId);
  expectStatus(await http.patch(`/v1/projects/${created.project.id}`, quotas, { token: owner.token }), 200);
  return created;
}

const usage = (projectId: string, query = "", token = owner.token) => http.get(`/v1/projects/${projectId}/attachment-usage${query}`, { token });

describe("quota refusals", () => {
  it("refuses past the user's quota with user_quota_exhausted and its numbers, per user", async () => {
    const { clientKey } = await projectWithQuotas({ attachment_user_quota_bytes: 300 });
    for (let index = 0; index < 3; index += 1) expectStatus(await reserve(http, clientKey, reservationFor(aFile(100), { user_id: "alice" })), 201);
    const refused = await reserve(http, clientKey, reservationFor(aFile(100), { user_id: "alice" }));
    expect(refused).toMatchObject({
      status: 413,
      body: { error: expect.any(String), code: "user_quota_exhausted", quota_bytes: 300, used_bytes: 300, requested_bytes: 100 },
    });
    expectStatus(await reserve(http, clientKey, reservationFor(aFile(100), { user_id: "bob" })), 201);
    // Without a user id only the project's quota applies.
    expectStatus(await reserve(http, clientKey, reservationFor(aFile(100))), 201);
  });

  it("refuses past the project's quota with quota_exhausted, and a single file larger than it", async () => {
    const { project, clientKey } = await projectWithQuotas({ attachment_project_quota_bytes: 250 });
    expectStatus(await reserve(http, clientKey, reservationFor(aFile(200), { user_id: "carol" })), 201);
    expect(await reserve(http, clientKey, reservationFor(aFile(100), { user_id: "dave" }))).toMatchObject({
      status: 413,
      body: { code: "quota_exhausted", quota_bytes: 250, used_bytes: 200, requested_bytes: 100 },
    });
    expect((await reserve(http, clientKey, reservationFor(aFile(300)))).body.code).toBe("quota_exhausted");
    // A deletion gives its bytes back.
    const listed = await http.get(`/v1/attachments?project_id=${project.id}`, { token: owner.token });
    expectStatus(await http.delete(`/v1/attachments/${listed.body.attachments[0].id}`, { token: owner.token }), 200);
    expectStatus(await reserve(http, clientKey, reservationFor(aFile(250))), 201);
  });

  it("applies the defaults when the overrides are reset to null", async () => {
    const { project } = await projectWithQuotas({ attachment_user_quota_bytes: 1, attachment_project_quota_bytes: 1 });
    expectStatus(await http.patch(`/v1/projects/${project.id}`, { attachment_user_quota_bytes: null, attachment_project_quota_bytes: null }, { token: owner.token }), 200);
    expect((await usage(project.id)).body).toMatchObject({ quota_bytes: 5_368_709_120, user_quota_bytes: 262_144_000 });
  });
});

describe("quotas under concurrency", () => {
  it("lets exactly as many parallel reservations through as the project quota holds, across keys and instances", async () => {
    const size = 1_000;
    const { project, clientKey } = await projectWithQuotas({ attachment_project_quota_bytes: 10 * size });
    const keys = [clientKey];
    for (let index = 0; index < 3; index += 1) keys.push((await createApp(http, owner.token, project.id, { name: `App ${index}` })).client_secret);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) => reserve(index % 2 === 0 ? http : secondHttp, keys[index % keys.length]!, reservationFor(aFile(size), { user_id: `user-${index % 5}` }))),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 413)).toHaveLength(30);
    for (const refused of answers.filter((answer) => answer.status === 413)) expect(refused.body).toMatchObject({ code: "quota_exhausted", used_bytes: 10 * size });
    expect((await usage(project.id)).body).toMatchObject({ used_bytes: 10 * size, file_count: 10 });
  });

  it("keeps a user's quota exact under parallel reservations too", async () => {
    const { clientKey } = await projectWithQuotas({ attachment_user_quota_bytes: 500 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, index) => reserve(index % 2 === 0 ? http : secondHttp, clientKey, reservationFor(aFile(100), { user_id: "erin" }))));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 413).every((answer) => answer.body.code === "user_quota_exhausted")).toBe(true);
  });
});

describe("the usage route", () => {
  it("counts reserved and uploaded files not deleted, per project and per user, with the effective quotas", async () => {
    const { project, clientKey } = await projectWithQuotas({ attachment_user_quota_bytes: 10_000 });
    await reserveAndUpload(http, clientKey, aFile(100), { user_id: "frank" });
    expectStatus(await reserve(http, clientKey, reservationFor(aFile(40), { user_id: "frank" })), 201);
    expectStatus(await reserve(http, clientKey, reservationFor(aFile(7))), 201);
    const deleted = await reserveAndUpload(http, clientKey, aFile(1_000), { user_id: "frank" });
    expectStatus(await http.delete(`/v1/attachments/${deleted}`, { token: owner.token }), 200);

    expect((await usage(project.id)).body).toEqual({ project_id: project.id, used_bytes: 147, quota_bytes: 5_368_709_120, user_quota_bytes: 10_000, file_count: 3 });
    expect((await usage(project.id, "?user_id=frank")).body).toMatchObject({ user_id: "frank", user_used_bytes: 140, user_file_count: 2 });
    expect((await usage(project.id, "?user_id=nobody")).body).toMatchObject({ user_id: "nobody", user_used_bytes: 0, user_file_count: 0 });
  });

  it("answers 404 for a missing, deleted or foreign project, and 403 to a key without events:read", async () => {
    const stranger = await signIn(http, service.outbox);
    const { project, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    expect(await usage(project.id, "", stranger.token)).toMatchObject({ status: 404, body: anError });
    expect((await usage("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await usage(project.id, "", clientKey)).status).toBe(403);
    expectStatus(await http.delete(`/v1/projects/${project.id}`, { token: owner.token }), 200);
    expect((await usage(project.id)).status).toBe(404);
  });
});
