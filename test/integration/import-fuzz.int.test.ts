import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { startWithClient, stopTestService, type TestService } from "../support/service.ts";
import { streamHead } from "../support/streams.ts";
import { signIn } from "../support/users.ts";
import { isBatchAnswer, mangleEncoding } from "../support/fuzz-bodies.ts";
import { seededRandom as generator } from "../support/seeded-random.ts";

/**
 * 1,100 random malformed (and some valid) import requests: odd JSON values in every field, strings
 * Postgres cannot store, repeated client_event_ids, timestamps of any age, broken gzip, stray
 * encodings, foreign credentials. Every answer must be a 4xx `{"error": ...}` or a 200 with
 * per-event rejections, never a 5xx; and the projector must not set any fact aside.
 */

const REQUESTS = 1_100;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

let service: TestService;
let http: Client;
const keys: { importKey: string; clientKey: string }[] = [];

beforeAll(async () => {
  ({ service, http } = await startWithClient());
  const owner = await signIn(http, service.outbox);
  for (const platform of ["apple", "android", "web", "backend"]) {
    const target = await projectWithApp(http, owner.token, owner.teamId, { platform, bundle_id: platform === "backend" ? null : `com.fuzz.${randomUUID().slice(0, 8)}` });
    const key = await http.post("/v1/auth/keys", { name: "fuzz", key_type: "import", app_id: target.app.id }, { token: owner.token });
    keys.push({ importKey: key.body.api_key.secret, clientKey: target.clientKey });
  }
});
afterAll(async () => stopTestService(service));


it(`answers ${REQUESTS} malformed import requests with 4xx or per-event rejections, never 5xx (seed ${SEED})`, async () => {
  const random = generator(SEED);
  const reused = Array.from({ length: 20 }, () => randomUUID());
  const strings = ["", " ", "x".repeat(300), "\u0000", "a\u0000b", "\ud800", "x\udfff", "\udc00\ud800", "😀", "0000-00-00T00:00:00Z", "1969-12-31T23:59:59.999Z", "__proto__"];
  const value = (depth = 0): unknown => {
    switch (random.int(depth > 2 ? 8 : 10)) {
      case 0:
        return null;
      case 1:
        return random.next() < 0.5;
      case 2:
        return random.pick([0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER]);
      case 3:
        return random.pick(strings);
      case 4:
        return random.pick(reused);
      case 5:
        // Any age, and a little into the future.
        return new Date(Date.now() - random.next() * 40 * 365 * 86_400_000 + (random.next() < 0.1 ? 20 * 60_000 : 0)).toISOString();
      case 6:
        return random.pick(["info", "debug", "warn", "error", "fatal"]);
      case 7:
        return random.pick(["ios", "android", "web", "backend", "tvos"]);
      case 8:
        return Array.from({ length: random.int(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: random.int(5) }, () => [random.pick(strings.concat(["a", "b"])), value(depth + 1)]));
    }
  };
  const fields = ["message", "level", "session_id", "client_event_id", "user_id", "custom_attributes", "environment", "timestamp", "is_dev", "screen_name", "app_version", "locale"];
  const event = () => {
    const base: Record<string, unknown> = {
      message: "m",
      level: "info",
      session_id: randomUUID(),
      client_event_id: random.next() < 0.7 ? random.pick(reused) : null,
      environment: random.pick(["ios", "android", "web", "backend"]),
    };
    for (let i = random.int(4); i > 0; i -= 1) base[random.pick(fields)] = value();
    if (random.next() < 0.1) delete base[random.pick(fields)];
    return random.next() < 0.05 ? value() : base;
  };

  const failures: string[] = [];
  let perEvent = 0;
  for (let index = 0; index < REQUESTS; index += 1) {
    const key = random.pick(keys);
    const headers: Record<string, string> = {};
    if (random.next() < 0.9) headers["content-type"] = random.pick(["application/json", "text/plain", "application/octet-stream"]);
    const bodyObject: Record<string, unknown> = {};
    if (random.next() < 0.2) bodyObject.bundle_id = value();
    if (random.next() < 0.92) bodyObject.events = random.next() < 0.85 ? Array.from({ length: random.int(random.next() < 0.03 ? 1_010 : 15) }, event) : value();
    const shape = random.int(10);
    let raw: string | Uint8Array = shape === 0 ? JSON.stringify(value()) : shape === 1 ? JSON.stringify(bodyObject).slice(0, random.int(40)) : JSON.stringify(bodyObject);
    raw = mangleEncoding(random, raw, headers);
    const token = random.next() < 0.05 ? random.pick(["svc_import_nope", key.clientKey, "not-a-token", ""]) : key.importKey;
    const response = await http.call("POST", "/v1/import", { rawBody: raw, headers, token: token || undefined });
    const body = response.body;
    const ok = isBatchAnswer(response, ["accepted", "updated", "rejected"]);
    if (response.status === 200 && body.rejected > 0) perEvent += 1;
    if (!ok) failures.push(`#${index}: ${response.status} ${JSON.stringify(body).slice(0, 200)} for ${typeof raw === "string" ? raw.slice(0, 200) : "<binary>"}`);
  }
  expect(failures, `seed ${SEED}`).toEqual([]);
  expect(perEvent).toBeGreaterThan(50);

  // Whatever was accepted could be stored: no fact of the run was set aside by a projector.
  const head = await streamHead(service.log, "INGEST");
  const reached = async () =>
    service.pool.anyFirst(sql.type(z.object({ last_seq: z.number() }))`
      select c.last_seq from projection_checkpoints c
        join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
       where c.projection in ('events', 'metric_events', 'funnel_events', 'app_users')`);
  for (let attempt = 0; attempt < 100 && (await reached()).some((seq) => seq < head); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 200));
  expect((await reached()).every((seq) => seq >= head)).toBe(true);
  expect(await service.pool.anyFirst(sql.type(z.object({ error: z.string() }))`select error from parked_facts`)).toEqual([]);
});
