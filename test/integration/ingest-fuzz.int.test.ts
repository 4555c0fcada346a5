import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { startWithClient, stopTestService, type TestService } from "../support/service.ts";
import { signIn } from "../support/users.ts";
import { isBatchAnswer, mangleEncoding } from "../support/fuzz-bodies.ts";
import { seededRandom as generator } from "../support/seeded-random.ts";

/**
 * 1,200 random malformed (and a few valid) ingest requests: odd JSON values in every field, broken
 * and oversized gzip, stray encodings and content types, missing or foreign credentials. Every
 * answer must be a 4xx `{"error": ...}` or a 200 with per-event rejections; never a 5xx.
 */

const REQUESTS = 1_200;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

let service: TestService;
let http: Client;
const apps: { clientKey: string; bundleId: string | null; platform: string }[] = [];

beforeAll(async () => {
  ({ service, http } = await startWithClient());
  const owner = await signIn(http, service.outbox);
  // Enough keys that the 100-token buckets leave most requests to the validation under test.
  for (const platform of ["apple", "android", "web", "backend", "apple", "android", "web", "backend", "apple", "web", "android", "backend", "web", "apple"]) {
    const bundleId = platform === "backend" ? null : `com.fuzz.${randomUUID().slice(0, 8)}`;
    const { clientKey } = await projectWithApp(http, owner.token, owner.teamId, { platform, bundle_id: bundleId });
    apps.push({ clientKey, bundleId, platform });
  }
});
afterAll(async () => stopTestService(service));


it(`answers ${REQUESTS} malformed ingest requests with 4xx or per-event rejections, never 5xx (seed ${SEED})`, async () => {
  const random = generator(SEED);
  const strings = ["", " ", "x".repeat(300), "info", "ios", "android", "web", "backend", "🙂".repeat(150), "\u0000", "2026-02-30T00:00:00Z", "null", "__proto__", "constructor"];
  const value = (depth = 0): unknown => {
    switch (random.int(depth > 2 ? 7 : 9)) {
      case 0:
        return null;
      case 1:
        return random.next() < 0.5;
      case 2:
        return random.pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER]);
      case 3:
        return random.pick(strings);
      case 4:
        return randomUUID();
      case 5:
        return new Date(Date.now() + (random.next() - 0.7) * 90 * 86_400_000).toISOString();
      case 6:
        return random.pick(["info", "debug", "warn", "error", "fatal"]);
      case 7:
        return Array.from({ length: random.int(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: random.int(5) }, () => [random.pick(strings.concat(["a", "b"])), value(depth + 1)]));
    }
  };
  const fields = ["message", "level", "session_id", "client_event_id", "user_id", "custom_attributes", "environment", "timestamp", "is_dev", "screen_name", "locale", "country_code"];
  const event = () => {
    const base: Record<string, unknown> = { message: "m", level: "info", session_id: randomUUID(), environment: random.pick(["ios", "android", "web", "backend"]) };
    for (let i = random.int(4); i > 0; i -= 1) base[random.pick(fields)] = value();
    if (random.next() < 0.1) delete base[random.pick(fields)];
    return random.next() < 0.05 ? value() : base;
  };

  const failures: string[] = [];
  let perEvent = 0;
  for (let index = 0; index < REQUESTS; index += 1) {
    const app = random.pick(apps);
    const headers: Record<string, string> = {};
    if (random.next() < 0.9) headers["content-type"] = random.pick(["application/json", "text/plain", "application/octet-stream", "application/json; charset=utf-8"]);
    if (random.next() < 0.2) headers["cf-ipcountry"] = random.pick(["DE", "xx", "T1", "Germany", "", "\u00e9\u00e9"]);
    const bodyObject: Record<string, unknown> = {};
    if (random.next() < 0.85) bodyObject.bundle_id = random.next() < 0.8 ? app.bundleId : value();
    if (random.next() < 0.9) bodyObject.events = random.next() < 0.85 ? Array.from({ length: random.int(random.next() < 0.05 ? 130 : 12) }, event) : value();
    const shape = random.int(10);
    let raw: string | Uint8Array =
      shape === 0 ? JSON.stringify(value()) : shape === 1 ? JSON.stringify(bodyObject).slice(0, random.int(40)) : JSON.stringify(bodyObject);
    raw = mangleEncoding(random, raw, headers);
    const token = random.next() < 0.05 ? random.pick(["svc_client_nope", "svc_agent_x", "not-a-token", ""]) : app.clientKey;
    const response = await http.call("POST", "/v1/ingest", { rawBody: raw, headers, token: token || undefined });
    const body = response.body;
    const ok = isBatchAnswer(response, ["accepted", "rejected"]);
    if (response.status === 200 && body.rejected > 0) perEvent += 1;
    if (!ok) failures.push(`#${index}: ${response.status} ${JSON.stringify(body).slice(0, 200)} for ${typeof raw === "string" ? raw.slice(0, 200) : "<binary>"}`);
  }
  expect(failures, `seed ${SEED}`).toEqual([]);
  expect(perEvent).toBeGreaterThan(50);
});
