import { gzipSync } from "node:zlib";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ingestSettled } from "../support/app-users.ts";
import { projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { freePort } from "../support/processes.ts";
import { startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { seededRandom as random, type SeededRandom } from "../support/seeded-random.ts";

/**
 * Posts 1,500 random malformed requests (bodies, content types, encodings, credentials, paths) to
 * the identity routes. None may answer 500 or crash the service; every failure is `{"error": ...}`.
 * The generator is seeded, so a failure names the seed and request that reproduce it.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const REQUESTS = 1_500;
const PARALLEL = 16;

let service: TestService;
let http: Client;
let clientKey: string;
let agentKey: string;

beforeAll(async () => {
  // The attribution network is a closed port: a request that gets that far is an upstream failure (502).
  const { owner, ...started } = await startWithOwner(await testConfig({ ADNET_BASE_URL: `http://127.0.0.1:${await freePort()}`, ADNET_TIMEOUT_MS: "1000" }));
  ({ service, http } = started);
  clientKey = (await projectWithApp(http, owner.token, owner.teamId, { platform: "web", bundle_id: "fuzz.example.com" })).clientKey;
  agentKey = (await http.post("/v1/auth/keys", { name: "fuzz", key_type: "agent", team_id: owner.teamId }, { token: owner.token })).body.api_key.secret;
});
afterAll(async () => stopTestService(service));


type Rng = SeededRandom;

const ODD_STRINGS = ["", " ", "svc_anon_", "svc_anon_x", "svc_client_x", "\u0000", "\ud800", "__proto__", "constructor", "💥".repeat(60), "a".repeat(256), "%s%n", "' or 1=1 --", "\\", "null"];

function text(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return rng.pick(ODD_STRINGS);
    case 1:
      return "x".repeat(rng.int(400));
    case 2:
      return Array.from({ length: rng.int(20) }, () => String.fromCharCode(rng.int(0x3000))).join("");
    default:
      return `svc_anon_${rng.int(1_000_000)}`;
  }
}

function value(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 3 ? 6 : 8)) {
    case 0:
      return null;
    case 1:
      return rng.next() < 0.5;
    case 2:
      return rng.pick([0, -1, 1e308, Number.MAX_SAFE_INTEGER, 3.14]);
    case 3:
    case 4:
    case 5:
      return text(rng);
    case 6:
      return Array.from({ length: rng.int(4) }, () => value(rng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: rng.int(5) }, () => [text(rng), value(rng, depth + 1)]));
  }
}

/** A body shaped like one of the routes' bodies, with some fields wrong, missing or extra. */
function body(rng: Rng, route: string): unknown {
  const field = () => (rng.next() < 0.6 ? text(rng) : value(rng));
  if (rng.next() < 0.15) return value(rng);
  if (route === "claim") return { anonymous_id: field(), user_id: field(), ...(rng.next() < 0.2 ? { extra: value(rng) } : {}) };
  if (route === "properties") {
    const properties = rng.next() < 0.7 ? Object.fromEntries(Array.from({ length: rng.int(80) }, () => [text(rng), field()])) : value(rng);
    return { user_id: field(), properties };
  }
  return { user_id: field(), attribution_token: field(), dev_mock: rng.pick([undefined, "attributed", "pending", "nope", 1, null]) };
}

type Request = { path: string; headers: Record<string, string>; body: string | Uint8Array | undefined };

function request(rng: Rng): Request {
  const route = rng.pick(["claim", "properties", "attribution"]);
  const path =
    route === "attribution"
      ? `/v1/identity/attribution/${rng.pick(["adnet-search", "adnet-search", "other", "%00", encodeURIComponent(Buffer.from(text(rng)).toString("utf8")) || "x", "adnet-search/extra"])}`
      : `/v1/identity/${route}`;
  const headers: Record<string, string> = {};
  const auth = rng.int(10);
  if (auth < 6) headers.authorization = `Bearer ${clientKey}`;
  else if (auth === 6) headers.authorization = `Bearer ${agentKey}`;
  else if (auth === 7) headers.authorization = rng.pick(["Bearer", "Bearer svc_client_nope", "Basic dXNlcjpwdw==", `Bearer ${"x".repeat(5_000)}`, "Bearer a.b.c"]);
  // auth 8, 9: no credentials
  // Mostly JSON, so most requests reach the handlers rather than the content-type guard.
  headers["content-type"] =
    rng.next() < 0.8
      ? rng.pick(["application/json", "application/json; charset=utf-8"])
      : rng.pick(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/octet-stream", "application/json; charset=latin1"]);
  let raw: string | Uint8Array | undefined;
  switch (rng.int(8)) {
    case 0:
      raw = undefined;
      break;
    case 1:
      raw = rng.pick(["{", "[1,2", "{\"user_id\":", "nul", "\u0000", "{\"a\":1}}", "😀", "{\"__proto__\":{\"x\":1}}"]);
      break;
    case 2:
      raw = JSON.stringify(body(rng, route)).slice(0, 1 + rng.int(60));
      break;
    default:
      raw = JSON.stringify(body(rng, route)) ?? "null";
  }
  if (raw !== undefined && rng.next() < 0.04) {
    headers["content-encoding"] = rng.pick(["gzip", "br", "deflate"]);
    if (headers["content-encoding"] === "gzip" && rng.next() < 0.5) raw = gzipSync(raw);
  }
  return { path, headers, body: raw };
}

describe("identity routes under malformed input", () => {
  it(`answer ${REQUESTS} random malformed requests without a 500 (seed ${SEED})`, async () => {
    const rng = random(SEED);
    const requests = Array.from({ length: REQUESTS }, () => request(rng));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const index = next++;
        const { path, headers, body: raw } = requests[index]!;
        const response = await fetch(`${service.baseUrl}${path}`, { method: "POST", headers, body: raw as BodyInit | undefined });
        const answer = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        let parsed: any;
        try {
          parsed = JSON.parse(answer);
        } catch {
          parsed = undefined;
        }
        const serverError = response.status >= 500 && response.status !== 502;
        const badError = response.status >= 400 && (typeof parsed !== "object" || parsed === null || typeof parsed.error !== "string");
        const badSuccess = response.status < 400 && (typeof parsed !== "object" || parsed === null);
        if (serverError || badError || badSuccess) {
          failures.push(`#${index} ${path} ${JSON.stringify(headers).slice(0, 200)} ${String(raw).slice(0, 200)} -> ${response.status} ${answer.slice(0, 200)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, lane));
    expect(failures, `seed ${SEED}`).toEqual([]);
    // The mix reached the handlers, not only the guards in front of them.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(300);
    expect([...statuses.keys()].some((status) => status === 200)).toBe(true);
    expect((await http.get("/healthz")).status).toBe(200);
    // Every identity call the API accepted was applied: none reached the read model as a poison fact.
    await ingestSettled(service, ["app_users"]);
    expect(await service.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
      select count(*)::bigint as count from parked_facts where projection = 'app_users'`)).toBe(0);
    expect((await http.post("/v1/identity/claim", { anonymous_id: "svc_anon_after_fuzz", user_id: "after-fuzz" }, { token: clientKey })).status).toBe(200);
  });
});
