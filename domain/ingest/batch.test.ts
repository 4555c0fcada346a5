import { describe, expect, it } from "vitest";
import { DomainError } from "../shared/errors.ts";
import { countryCode, normalizeBatch, readIngestRequest } from "./batch.ts";

const NOW = Date.parse("2026-11-21T12:00:00.000Z");
const context = { mode: "ingest" as const, platform: "android" as const, nowMs: NOW };
const event = (fields: Record<string, unknown> = {}) => ({ message: "m", level: "info", session_id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", ...fields });
const CLIENT_ID = "0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d";

const codeOf = (run: () => unknown): string | "ok" => {
  try {
    run();
    return "ok";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

describe("readIngestRequest", () => {
  const app = { platform: "apple" as const, bundle_id: "com.example.app" };

  it.each([
    ["a non-object body", [], "invalid"],
    ["a null body", null, "invalid"],
    ["no bundle_id for a client platform", { events: [] }, "invalid"],
    ["a non-string bundle_id", { bundle_id: 1, events: [] }, "invalid"],
    ["another app's bundle_id", { bundle_id: "com.example.other", events: [] }, "forbidden"],
    ["a bundle_id differing in case", { bundle_id: "COM.example.app", events: [] }, "forbidden"],
    ["no events", { bundle_id: "com.example.app" }, "invalid"],
    ["events that are not a list", { bundle_id: "com.example.app", events: "x" }, "invalid"],
    ["101 events", { bundle_id: "com.example.app", events: Array.from({ length: 101 }, () => ({})) }, "invalid"],
    ["100 events", { bundle_id: "com.example.app", events: Array.from({ length: 100 }, () => ({})) }, "ok"],
  ])("answers %s with %s", (_name, body, expected) => {
    expect(codeOf(() => readIngestRequest(body, app, 100))).toBe(expected);
  });

  it("needs no bundle_id from backend apps", () => {
    expect(readIngestRequest({ events: [1] }, { platform: "backend", bundle_id: null }, 100)).toEqual([1]);
    expect(readIngestRequest({ bundle_id: "whatever", events: [] }, { platform: "backend", bundle_id: null }, 100)).toEqual([]);
  });
});

describe("normalizeBatch", () => {
  it("reports invalid events by index and keeps the valid ones in order", () => {
    const result = normalizeBatch([event({ message: "a" }), event({ level: "loud" }), 7, event({ message: "b" })], context);
    expect(result.accepted).toBe(2);
    expect(result.rejected).toBe(2);
    expect(result.errors).toEqual([
      { index: 1, message: "events[1]: level must be one of info, debug, warn, error" },
      { index: 2, message: "events[2]: must be an object" },
    ]);
    expect(result.events.map((e) => e.message)).toEqual(["a", "b"]);
  });

  it("keeps the first of a repeated client_event_id and counts the repeats as accepted", () => {
    const result = normalizeBatch(
      [event({ client_event_id: CLIENT_ID, message: "first" }), event({ client_event_id: CLIENT_ID.toUpperCase(), message: "again" }), event({ message: "other" })],
      context,
    );
    expect(result).toMatchObject({ accepted: 3, rejected: 0, errors: [] });
    expect(result.events.map((e) => e.message)).toEqual(["first", "other"]);
  });

  it("keeps every event in import mode, where a repeat updates instead", () => {
    const result = normalizeBatch([event({ client_event_id: CLIENT_ID }), event({ client_event_id: CLIENT_ID })], { ...context, mode: "import" });
    expect(result.events).toHaveLength(2);
  });

  it("gives every event its own id", () => {
    const result = normalizeBatch(Array.from({ length: 100 }, () => event()), context);
    expect(new Set(result.events.map((e) => e.id)).size).toBe(100);
  });
});

describe("countryCode", () => {
  it.each([
    ["DE", "apple", "DE"],
    ["de", "web", "DE"],
    [" us ", "android", "US"],
    [["FR", "DE"], "apple", "FR"],
    ["XX", "apple", null],
    ["T1", "apple", null],
    ["xx", "apple", null],
    ["DEU", "apple", null],
    ["", "apple", null],
    [undefined, "apple", null],
    ["DE", "backend", null],
  ] as const)("%j from a %s app is %s", (header, platform, expected) => {
    expect(countryCode(header as string | string[] | undefined, platform)).toBe(expected);
  });
});
