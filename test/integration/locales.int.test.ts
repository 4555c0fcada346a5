import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestSettled } from "../support/app-users.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Locale demand through HTTP: users per last locale and country, the languages the apps ship (as
 * their SDKs report them) and the gap flags, per project, per app and across projects.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
let ios: { app: any; clientKey: string };
let droid: { app: any; clientKey: string };
let silent: { app: any; clientKey: string };
let otherProjectId: string;

const id = (label: string) => `${label}-${randomBytes(3).toString("hex")}`;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  const created = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple", bundle_id: "com.example.loc" });
  projectId = created.project.id;
  ios = created;
  const android = await createApp(http, owner.token, projectId, { platform: "android", bundle_id: "com.example.loc.droid" });
  droid = { app: android, clientKey: android.client_secret };
  const quiet = await createApp(http, owner.token, projectId, { platform: "web", bundle_id: "loc.example.com" });
  silent = { app: quiet, clientKey: quiet.client_secret };
  const other = await projectWithApp(http, owner.token, owner.teamId, { platform: "web", bundle_id: "other.example.com" });
  otherProjectId = other.project.id;

  const send = async (target: { app: any; clientKey: string }, environment: string, country: string | undefined, events: object[]) => {
    const headers: Record<string, string> = country ? { "cf-ipcountry": country } : {};
    const response = await ingest(http, target.clientKey, { bundle_id: target.app.bundle_id, events: events.map((event) => anEvent({ ...event, environment })) }, { headers });
    expect(response).toMatchObject({ status: 200, body: { rejected: 0 } });
  };
  await send(ios, "ios", "DE", [{ user_id: id("de"), locale: "de_DE", custom_attributes: { preferred_language: "de", supported_languages: "en,de-DE" } }]);
  await send(ios, "ios", "AT", [{ user_id: id("at"), locale: "de-AT" }]);
  await send(ios, "ios", "FR", [{ user_id: id("dev"), locale: "fr_FR", is_dev: true }]);
  await send(droid, "android", "US", [
    { user_id: id("us"), locale: "en_US", custom_attributes: { preferred_language: "en", supported_languages: "en" } },
    { user_id: id("nolocale") },
  ]);
  await send(silent, "web", "GB", [{ user_id: id("web"), locale: "en_GB" }]);
  await send(other, "web", "JP", [{ user_id: id("jp"), locale: "ja_JP" }]);
  await ingestSettled(service);
});
afterAll(async () => stopTestService(service));

const locales = async (path: string, token = owner.token) => {
  const response = await http.get(path, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

describe("project locale demand", () => {
  it("counts production users per locale and country, flagging languages the apps do not ship", async () => {
    expect(await locales(`/v1/projects/${projectId}/users/locales`)).toEqual({
      by_locale: [
        { locale: "de-AT", base_language: "de", user_count: 1, shipped: true },
        { locale: "de_DE", base_language: "de", user_count: 1, shipped: true },
        { locale: "en_GB", base_language: "en", user_count: 1, shipped: true },
        { locale: "en_US", base_language: "en", user_count: 1, shipped: true },
      ],
      by_country: [
        { country_code: "US", user_count: 2 },
        { country_code: "AT", user_count: 1 },
        { country_code: "DE", user_count: 1 },
        { country_code: "GB", user_count: 1 },
      ],
      supported_languages: ["de", "en"],
      users_with_preferred_language: 2,
      total_users: 5,
    });
  });

  it("includes development users with data_mode", async () => {
    const all = await locales(`/v1/projects/${projectId}/users/locales?data_mode=all`);
    expect(all.total_users).toBe(6);
    expect(all.by_locale).toContainEqual({ locale: "fr_FR", base_language: "fr", user_count: 1, shipped: false });
    const development = await locales(`/v1/projects/${projectId}/users/locales?data_mode=development`);
    expect(development).toMatchObject({ total_users: 1, by_country: [{ country_code: "FR", user_count: 1 }] });
  });

  it("narrows to one app, with that app's languages", async () => {
    const android = await locales(`/v1/projects/${projectId}/users/locales?app_id=${droid.app.id}`);
    expect(android).toMatchObject({ total_users: 2, supported_languages: ["en"], users_with_preferred_language: 1 });
    expect(android.by_locale).toEqual([{ locale: "en_US", base_language: "en", user_count: 1, shipped: true }]);
    const web = await locales(`/v1/projects/${projectId}/users/locales?app_id=${silent.app.id}`);
    expect(web).toMatchObject({ total_users: 1, supported_languages: null, by_locale: [{ locale: "en_GB", base_language: "en", user_count: 1, shipped: null }] });
  });

  it("answers 404 for projects and apps the caller cannot see, 400 for bad input", async () => {
    const outsider = await signIn(http, service.outbox);
    expect(await http.get(`/v1/projects/${projectId}/users/locales`, { token: outsider.token })).toMatchObject({ status: 404, body: anError });
    const foreignApp = (await http.get(`/v1/projects/${otherProjectId}`, { token: owner.token })).body.apps[0].id;
    expect(await http.get(`/v1/projects/${projectId}/users/locales?app_id=${foreignApp}`, { token: owner.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get(`/v1/projects/${projectId}/users/locales?app_id=nope`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect(await http.get(`/v1/projects/${projectId}/users/locales?data_mode=any`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect(await http.get(`/v1/projects/not-a-uuid/users/locales`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect(await http.get(`/v1/projects/${projectId}/users/locales`)).toMatchObject({ status: 401, body: anError });
    expect(await http.get(`/v1/projects/${projectId}/users/locales`, { token: ios.clientKey })).toMatchObject({ status: 403, body: anError });
  });
});

describe("locale demand across projects", () => {
  it("aggregates every project of the caller without gap flags", async () => {
    const everything = await locales("/v1/users/locales");
    expect(everything).toMatchObject({ supported_languages: null, total_users: 6, users_with_preferred_language: 2 });
    expect(everything.by_locale.every((row: any) => row.shipped === null)).toBe(true);
    expect(everything.by_locale).toContainEqual({ locale: "ja_JP", base_language: "ja", user_count: 1, shipped: null });
    expect((await locales(`/v1/users/locales?team_id=${owner.teamId}`)).total_users).toBe(6);
  });

  it("flags gaps once narrowed to a project or an app", async () => {
    const project = await locales(`/v1/users/locales?project_id=${projectId}`);
    expect(project).toMatchObject({ supported_languages: ["de", "en"], total_users: 5 });
    const app = await locales(`/v1/users/locales?app_id=${droid.app.id}`);
    expect(app).toMatchObject({ supported_languages: ["en"], total_users: 2 });
    const other = await locales(`/v1/users/locales?project_id=${otherProjectId}`);
    expect(other).toMatchObject({ supported_languages: null, total_users: 1, by_locale: [{ locale: "ja_JP", shipped: null }] });
  });

  it("shows nothing of teams the caller is not in", async () => {
    const outsider = await signIn(http, service.outbox);
    expect(await locales(`/v1/users/locales?project_id=${projectId}`, outsider.token)).toEqual({
      by_locale: [],
      by_country: [],
      supported_languages: null,
      users_with_preferred_language: 0,
      total_users: 0,
    });
    expect(await http.get("/v1/users/locales?team_id=x", { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });
});
