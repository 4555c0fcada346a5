import { describe, expect, it } from "vitest";
import { decodeEventsIngested } from "./events.ts";
import { encodeFacts, type FactSource } from "./fact.ts";
import { normalizeBatch } from "./batch.ts";

const source: FactSource = {
  batchId: "3d6f1c2a-4b5e-4f60-8a7b-9c0d1e2f3a4b",
  mode: "ingest",
  app: { id: "11111111-1111-4111-8111-111111111111", team_id: "22222222-2222-4222-8222-222222222222", project_id: "33333333-3333-4333-8333-333333333333", platform: "web" },
  apiKeyId: "44444444-4444-4444-8444-444444444444",
  receivedAt: "2026-11-21T12:00:00.000Z",
  countryCode: "DE",
};

const events = (count: number, message = "m") =>
  normalizeBatch(
    Array.from({ length: count }, () => ({ message, level: "info", session_id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b" })),
    { mode: "ingest", platform: "web", nowMs: Date.parse(source.receivedAt) },
  ).events;

describe("encodeFacts", () => {
  it("writes one versioned EventsIngested fact whose id is the batch id", () => {
    const batch = events(3);
    const [fact, ...rest] = encodeFacts(source, batch, 1024 * 1024);
    expect(rest).toEqual([]);
    expect(fact!.id).toBe(source.batchId);
    const decoded = decodeEventsIngested(new TextEncoder().encode(fact!.payload));
    expect(decoded).toMatchObject({
      type: "EventsIngested",
      v: 1,
      id: source.batchId,
      mode: "ingest",
      app_id: source.app.id,
      project_id: source.app.project_id,
      team_id: source.app.team_id,
      platform: "web",
      api_key_id: source.apiKeyId,
      received_at: source.receivedAt,
      country_code: "DE",
    });
    expect(decoded.events).toEqual(batch);
  });

  it("splits a batch larger than the message limit into parts with stable ids", () => {
    const batch = events(10, "x".repeat(1_000));
    const parts = encodeFacts(source, batch, 4_000);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) expect(Buffer.byteLength(part.payload)).toBeLessThanOrEqual(4_000);
    expect(parts.flatMap((part) => decodeEventsIngested(new TextEncoder().encode(part.payload)).events)).toEqual(batch);
    expect(new Set(parts.map((part) => part.id)).size).toBe(parts.length);
    expect(encodeFacts(source, batch, 4_000).map((part) => part.id)).toEqual(parts.map((part) => part.id));
  });

  it("refuses to decode a message that is not an EventsIngested fact", () => {
    const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    expect(() => decodeEventsIngested(encode({ type: "TeamCreated", v: 1 }))).toThrow();
    const [fact] = encodeFacts(source, events(1), 1024 * 1024);
    expect(() => decodeEventsIngested(encode({ ...JSON.parse(fact!.payload), v: 2 }))).toThrow();
    expect(() => decodeEventsIngested(new TextEncoder().encode("{"))).toThrow();
  });
});
