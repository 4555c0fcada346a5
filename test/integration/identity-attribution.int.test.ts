import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appUser, identity, ingestSettled } from "../support/app-users.ts";
import { projectWithApp } from "../support/catalog.ts";
import { startFakeAdnet } from "../support/fake-adnet.ts";
import { anError, client, type Client } from "../support/http.ts";
import { freePort } from "../support/processes.ts";
import { startTestService, startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * POST /v1/identity/attribution/adnet-search through HTTP, with a local fake of the ad network
 * speaking JSON over HTTP: every answer kind, upstream failures, dev mocks (honoured outside
 * production only) and attribution properties surviving a claim.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
let clientKey: string;
let adnet: Awaited<ReturnType<typeof startFakeAdnet>>;

const knownId = () => `user-${randomBytes(4).toString("hex")}`;
const anonymousId = () => `svc_anon_${randomBytes(8).toString("hex")}`;

const ATTRIBUTED = { attribution: true, orgId: 40669820, campaignId: 542370539, adGroupId: 542317095, keywordId: 87675432, claimType: "Click", adId: 542317136, creativeSetId: 1911 };
const ATTRIBUTED_PROPERTIES = {
  attribution_source: "adnet_search",
  adn_campaign_id: "542370539",
  adn_ad_group_id: "542317095",
  adn_keyword_id: "87675432",
  adn_claim_type: "Click",
  adn_ad_id: "542317136",
  adn_creative_set_id: "1911",
};

beforeAll(async () => {
  adnet = await startFakeAdnet({
    "tok-attributed": { status: 200, body: ATTRIBUTED },
    "tok-none": { status: 200, body: { attribution: false } },
    "tok-test": { status: 200, body: { attribution: true, orgId: 1234567890, campaignId: 1234567890, adGroupId: 1234567890, keywordId: 12323222, adId: 1234567890, claimType: "Click" } },
    "tok-invalid": { status: 400, body: { error: "invalid token" } },
    "tok-error": { status: 500, body: { error: "boom" } },
    "tok-garbage": { status: 200, body: "<html>not json</html>" },
    "tok-noflag": { status: 200, body: { campaignId: 1 } },
    "tok-slow": { status: 200, body: ATTRIBUTED, delayMs: 2_000 },
  });
  ({ service, http, owner } = await startWithOwner(await testConfig({ ADNET_BASE_URL: adnet.baseUrl, ADNET_TIMEOUT_MS: "500" })));
  const created = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple", bundle_id: "com.example.ads" });
  projectId = created.project.id;
  clientKey = created.clientKey;
});
afterAll(async () => {
  await stopTestService(service);
  await adnet.close();
});

const attribute = (body: Record<string, unknown>, source = "adnet-search", key = clientKey) => identity(http, key, `/attribution/${source}`, body);
const propertiesOf = async (userId: string) => {
  await ingestSettled(service);
  return (await appUser(http, owner.token, projectId, userId))?.properties;
};

describe("answers of the network", () => {
  it("stores an attribution and answers its properties", async () => {
    const userId = knownId();
    const response = await attribute({ user_id: userId, attribution_token: "tok-attributed" });
    expect(response).toMatchObject({ status: 200, body: { attributed: true, pending: false, properties: ATTRIBUTED_PROPERTIES } });
    expect(adnet.received.at(-1)).toEqual({ path: "/api/v1/", contentType: "text/plain", token: "tok-attributed" });
    expect(await propertiesOf(userId)).toEqual(ATTRIBUTED_PROPERTIES);
  });

  it("stores attribution_source none for an unattributed install, replacing earlier ids", async () => {
    const userId = knownId();
    expect((await attribute({ user_id: userId, attribution_token: "tok-attributed" })).status).toBe(200);
    const response = await attribute({ user_id: userId, attribution_token: "tok-none" });
    expect(response).toMatchObject({ status: 200, body: { attributed: false, pending: false, properties: { attribution_source: "none" } } });
    expect(await propertiesOf(userId)).toEqual({ attribution_source: "none" });
  });

  it("recognises a test install and stores no ids", async () => {
    const userId = knownId();
    const response = await attribute({ user_id: userId, attribution_token: "tok-test" });
    expect(response).toMatchObject({ status: 200, body: { attributed: false, pending: false, properties: { attribution_source: "adnet_test_install" } } });
    expect(await propertiesOf(userId)).toEqual({ attribution_source: "adnet_test_install" });
  });

  it("answers pending with retry_after_seconds while the network has no record, storing nothing", async () => {
    const userId = knownId();
    const response = await attribute({ user_id: userId, attribution_token: "tok-unknown-yet" });
    expect(response).toMatchObject({ status: 200, body: { attributed: null, pending: true, retry_after_seconds: expect.any(Number), properties: {} } });
    expect(response.body.retry_after_seconds).toBeGreaterThan(0);
    expect(await propertiesOf(userId)).toBeUndefined();
  });

  it("answers 400 for a token the network rejects and 502 for upstream failures", async () => {
    expect(await attribute({ user_id: knownId(), attribution_token: "tok-invalid" })).toMatchObject({ status: 400, body: anError });
    for (const token of ["tok-error", "tok-garbage", "tok-noflag", "tok-slow"]) {
      expect(await attribute({ user_id: knownId(), attribution_token: token }), token).toMatchObject({ status: 502, body: anError });
    }
  });
});

describe("properties", () => {
  it("survive a claim of the anonymous install", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    expect((await attribute({ user_id: anonymous, attribution_token: "tok-attributed" })).status).toBe(200);
    expect((await identity(http, clientKey, "/properties", { user_id: known, properties: { attribution_source: "none", plan: "pro" } })).status).toBe(200);
    expect((await identity(http, clientKey, "/claim", { anonymous_id: anonymous, user_id: known })).status).toBe(200);
    expect(await propertiesOf(known)).toEqual({ ...ATTRIBUTED_PROPERTIES, plan: "pro" });
  });

  it("merge like the properties route, within the 50-property limit", async () => {
    const userId = knownId();
    const many = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`p${i}`, "x"]));
    expect((await identity(http, clientKey, "/properties", { user_id: userId, properties: many })).status).toBe(200);
    expect(await attribute({ user_id: userId, attribution_token: "tok-attributed" })).toMatchObject({ status: 400, body: anError });
    expect(await attribute({ user_id: userId, attribution_token: "tok-none" })).toMatchObject({ status: 200 });
    expect(Object.keys(await propertiesOf(userId))).toHaveLength(46);
  });
});

describe("requests", () => {
  it("use dev mocks outside production without calling the network", async () => {
    const asked = adnet.received.length;
    const userId = knownId();
    expect(await attribute({ user_id: userId, attribution_token: "x", dev_mock: "attributed" })).toMatchObject({
      status: 200,
      body: { attributed: true, pending: false, properties: { attribution_source: "adnet_search", adn_campaign_id: expect.any(String) } },
    });
    expect(await attribute({ user_id: userId, attribution_token: "x", dev_mock: "unattributed" })).toMatchObject({
      status: 200,
      body: { attributed: false, properties: { attribution_source: "none" } },
    });
    expect(await attribute({ user_id: userId, attribution_token: "x", dev_mock: "pending" })).toMatchObject({
      status: 200,
      body: { attributed: null, pending: true, properties: {} },
    });
    expect(adnet.received.length).toBe(asked);
    expect(await attribute({ user_id: userId, attribution_token: "x", dev_mock: "maybe" })).toMatchObject({ status: 400, body: anError });
  });

  it("are validated", async () => {
    expect(await attribute({ user_id: knownId(), attribution_token: "tok-attributed" }, "adnet-display")).toMatchObject({ status: 400, body: anError });
    expect(await attribute({ attribution_token: "tok-attributed" })).toMatchObject({ status: 400, body: anError });
    expect(await attribute({ user_id: knownId() })).toMatchObject({ status: 400, body: anError });
    expect(await attribute({ user_id: knownId(), attribution_token: "   " })).toMatchObject({ status: 400, body: anError });
    expect(await attribute({ user_id: knownId(), attribution_token: 12 })).toMatchObject({ status: 400, body: anError });
    expect(await http.post("/v1/identity/attribution/adnet-search", { user_id: "u", attribution_token: "t" }, { token: owner.token })).toMatchObject({
      status: 403,
      body: anError,
    });
  });

  it("ignore dev_mock in production, and an unreachable network is a 502", async () => {
    const unreachable = `http://127.0.0.1:${await freePort()}`;
    const production = await startTestService({ ...service.config, port: 0, nodeEnv: "production", adnetBaseUrl: unreachable }, ["api"]);
    try {
      const response = await identity(client(production.baseUrl), clientKey, "/attribution/adnet-search", { user_id: knownId(), attribution_token: "x", dev_mock: "attributed" });
      expect(response).toMatchObject({ status: 502, body: anError });
    } finally {
      await production.close();
    }
  });
});
