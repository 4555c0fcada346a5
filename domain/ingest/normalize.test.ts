import { describe, expect, it } from "vitest";
import { timeOfId } from "../shared/ids.ts";
import { normalizeEvent, type NormalizeContext } from "./normalize.ts";

const NOW = Date.parse("2026-11-21T12:00:00.000Z");
const apple: NormalizeContext = { mode: "ingest", platform: "apple", nowMs: NOW };
const SESSION = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b";
const valid = { message: "hello", level: "info", session_id: SESSION, environment: "ios" };

const reasonOf = (raw: unknown, context = apple) => {
  const result = normalizeEvent(raw, context);
  return result.ok ? "ok" : result.reason;
};

describe("normalizeEvent", () => {
  it("fills in what the server decides: id from the timestamp, defaults for the rest", () => {
    const result = normalizeEvent(valid, apple);
    expect(result).toEqual({
      ok: true,
      event: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        client_event_id: null,
        session_id: SESSION,
        user_id: null,
        level: "info",
        source_module: null,
        message: "hello",
        screen_name: null,
        custom_attributes: {},
        environment: "ios",
        os_version: null,
        app_version: null,
        sdk_name: null,
        sdk_version: null,
        build_number: null,
        device_model: null,
        locale: null,
        is_dev: false,
        timestamp: "2026-11-21T12:00:00.000Z",
      },
    });
    if (result.ok) expect(timeOfId(result.event.id)).toBe(NOW);
  });

  it("keeps the client's timestamp at millisecond precision in UTC and lower-cases uuids", () => {
    const result = normalizeEvent(
      { ...valid, timestamp: "2026-11-21T13:30:00.123456+02:00", session_id: SESSION.toUpperCase(), client_event_id: SESSION.toUpperCase() },
      apple,
    );
    expect(result.ok && result.event).toMatchObject({ timestamp: "2026-11-21T11:30:00.123Z", session_id: SESSION, client_event_id: SESSION });
    const noZone = normalizeEvent({ ...valid, timestamp: "2026-11-21T10:00:00" }, apple);
    expect(noZone.ok && noZone.event.timestamp).toBe("2026-11-21T10:00:00.000Z");
  });

  it("refuses calendar values that only parse by rolling over, in any form", () => {
    const importing = { ...apple, mode: "import" as const };
    expect(reasonOf({ ...valid, timestamp: "2024-02-29T10:00:00.000Z" }, importing)).toBe("ok");
    expect(reasonOf({ ...valid, timestamp: "2024-02-29T10:00:00+01:00" }, importing)).toBe("ok");
    for (const timestamp of ["2023-02-29T10:00:00.000Z", "2023-02-29T10:00:00Z", "2026-04-31T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T24:00:00Z", "2026-01-01T10:60:00.000Z"]) {
      expect(reasonOf({ ...valid, timestamp }, importing)).toBe("timestamp must be an ISO 8601 date-time");
    }
  });

  it("stores a canonical timestamp exactly as sent and normalizes other forms", () => {
    const stored = (timestamp: string) => {
      const result = normalizeEvent({ ...valid, timestamp }, apple);
      return result.ok ? result.event.timestamp : result.reason;
    };
    expect(stored("2026-11-21T11:59:59.001Z")).toBe("2026-11-21T11:59:59.001Z");
    expect(stored("2026-11-21 11:59:59Z")).toBe("2026-11-21T11:59:59.000Z");
    expect(stored("2026-11-21T11:59z")).toBe("2026-11-21T11:59:00.000Z");
  });

  it.each([
    ["a string", "event", "must be an object"],
    ["an array", [valid], "must be an object"],
    ["no message", { ...valid, message: undefined }, "message is required"],
    ["a blank message", { ...valid, message: " " }, "message must be a non-empty string"],
    ["a numeric message", { ...valid, message: 1 }, "message must be a non-empty string"],
    ["an overlong message", { ...valid, message: "m".repeat(10_001) }, "message must be at most 10000 characters"],
    ["no level", { ...valid, level: null }, "level is required"],
    ["an unknown level", { ...valid, level: "INFO" }, "level must be one of info, debug, warn, error"],
    ["no session_id", { ...valid, session_id: undefined }, "session_id is required"],
    ["a bad session_id", { ...valid, session_id: "abc" }, "session_id must be a UUID"],
    ["a bad client_event_id", { ...valid, client_event_id: 5 }, "client_event_id must be a UUID"],
    ["a numeric user_id", { ...valid, user_id: 5 }, "user_id must be a string"],
    ["an overlong locale", { ...valid, locale: "l".repeat(256) }, "locale must be at most 255 characters"],
    ["attributes as a list", { ...valid, custom_attributes: [] }, "custom_attributes must be an object"],
    ["an empty attribute key", { ...valid, custom_attributes: { "": "x" } }, "custom_attributes keys must be 1 to 128 characters"],
    ["an environment of another platform", { ...valid, environment: "web" }, "environment must be one of ios, ipados, macos, watchos for apple apps"],
    ["a string is_dev", { ...valid, is_dev: "true" }, "is_dev must be a boolean"],
    ["a date without time", { ...valid, timestamp: "2026-11-21" }, "timestamp must be an ISO 8601 date-time"],
    ["an epoch number", { ...valid, timestamp: NOW }, "timestamp must be an ISO 8601 date-time"],
    ["an impossible date", { ...valid, timestamp: "2026-02-30T25:00:00Z" }, "timestamp must be an ISO 8601 date-time"],
  ])("rejects %s", (_name, raw, reason) => {
    expect(reasonOf(raw)).toBe(reason);
  });

  it("applies the timestamp window: 5 minutes ahead, 30 days back for ingest, any past date for import", () => {
    const at = (offsetMs: number) => ({ ...valid, timestamp: new Date(NOW + offsetMs).toISOString() });
    expect(reasonOf(at(5 * 60_000))).toBe("ok");
    expect(reasonOf(at(5 * 60_000 + 1))).toBe("timestamp is more than 5 minutes in the future");
    expect(reasonOf(at(-30 * 86_400_000))).toBe("ok");
    expect(reasonOf(at(-30 * 86_400_000 - 1))).toBe("timestamp is more than 30 days in the past");
    const importing = { ...apple, mode: "import" as const };
    expect(reasonOf(at(-400 * 86_400_000), importing)).toBe("ok");
    expect(reasonOf(at(6 * 60_000), importing)).toBe("timestamp is more than 5 minutes in the future");
    expect(reasonOf({ ...valid, timestamp: "1969-12-31T23:59:59Z" }, importing)).toBe("timestamp must not be before 1970-01-01");
  });

  it("allows each platform only its environments and implies the single one", () => {
    const on = (platform: NormalizeContext["platform"], environment?: string) => {
      const result = normalizeEvent({ ...valid, environment }, { ...apple, platform });
      return result.ok ? result.event.environment : result.reason;
    };
    for (const environment of ["ios", "ipados", "macos", "watchos"]) expect(on("apple", environment)).toBe(environment);
    expect(on("android")).toBe("android");
    expect(on("android", "ios")).toMatch(/must be one of android/);
    expect(on("web")).toBe("web");
    expect(on("backend")).toBe("backend");
    expect(on("backend", "web")).toMatch(/must be one of backend/);
  });

  it("places an apple event without an environment by its device model, iOS when that says nothing", () => {
    const on = (device_model?: string) => {
      const result = normalizeEvent({ ...valid, environment: undefined, device_model }, apple);
      return result.ok ? result.event.environment : result.reason;
    };
    expect([on("iPhone15,2"), on("iPad13,4"), on("Mac14,2"), on("iMac21,1"), on("Watch6,1"), on("Vision1,1"), on()]).toEqual([
      "ios",
      "ipados",
      "macos",
      "macos",
      "watchos",
      "ios",
      "ios",
    ]);
  });

  it("keeps string attributes truncated to 200 characters and turns other values into strings", () => {
    const result = normalizeEvent(
      { ...valid, custom_attributes: { s: "v".repeat(300), n: 1.5, b: true, o: { k: [1] }, a: ["x"], dropped: null, __proto__x: "p" } },
      apple,
    );
    expect(result.ok && { ...result.event.custom_attributes }).toEqual({
      s: "v".repeat(200),
      n: "1.5",
      b: "true",
      o: '{"k":[1]}',
      a: '["x"]',
      __proto__x: "p",
    });
  });

  it("treats a __proto__ attribute key as an ordinary key", () => {
    const raw = JSON.parse(`{"message":"m","level":"info","session_id":"${SESSION}","environment":"ios","custom_attributes":{"__proto__":"x"}}`);
    const result = normalizeEvent(raw, apple);
    expect(result.ok && JSON.stringify(result.event.custom_attributes)).toBe('{"__proto__":"x"}');
  });

  it("reads empty optional strings as not reported and ignores fields it does not know", () => {
    const result = normalizeEvent({ ...valid, user_id: "", screen_name: "", country_code: "FR", ip: "1.2.3.4", id: "mine" }, apple);
    expect(result.ok && result.event).toMatchObject({ user_id: null, screen_name: null });
    expect(result.ok && Object.keys(result.event)).not.toContain("ip");
    expect(result.ok && Object.keys(result.event)).not.toContain("country_code");
  });
});

describe("strings Postgres cannot store", () => {
  const reason = (field: string) => `${field} must not contain NUL characters or unpaired UTF-16 surrogates`;

  it("rejects NUL and unpaired surrogates in the message and every optional string", () => {
    expect(reasonOf({ ...valid, message: "a\u0000b" })).toBe(reason("message"));
    expect(reasonOf({ ...valid, message: "lone \ud800 high" })).toBe(reason("message"));
    expect(reasonOf({ ...valid, message: "lone high at the end \udbff" })).toBe(reason("message"));
    expect(reasonOf({ ...valid, message: "\udc00 lone low" })).toBe(reason("message"));
    expect(reasonOf({ ...valid, message: "reversed \udc00\ud800 pair" })).toBe(reason("message"));
    for (const field of ["user_id", "source_module", "screen_name", "os_version", "app_version", "sdk_name", "sdk_version", "build_number", "device_model", "locale"]) {
      expect(reasonOf({ ...valid, [field]: "x\u0000" })).toBe(reason(field));
      expect(reasonOf({ ...valid, [field]: "x\ud83d" })).toBe(reason(field));
    }
  });

  it("rejects them in attribute keys and in the stored part of attribute values", () => {
    expect(reasonOf({ ...valid, custom_attributes: { "k\u0000": "v" } })).toBe(reason("custom_attributes keys"));
    expect(reasonOf({ ...valid, custom_attributes: { k: "v\u0000" } })).toBe(reason("custom_attributes.k"));
    expect(reasonOf({ ...valid, custom_attributes: { k: "\udfff" } })).toBe(reason("custom_attributes.k"));
    // Cut off by the 200-character truncation, so never stored.
    expect(reasonOf({ ...valid, custom_attributes: { k: `${"x".repeat(200)}\u0000` } })).toBe("ok");
  });

  it("keeps what can be stored: paired surrogates, escaped text from nested values, other control characters", () => {
    const result = normalizeEvent({ ...valid, message: "😀 \u0001\t ok", user_id: "𝄞", custom_attributes: { nested: { k: "\u0000\ud800" }, e: "😀" } }, apple);
    expect(result.ok && result.event).toMatchObject({
      message: "😀 \u0001\t ok",
      user_id: "𝄞",
      custom_attributes: { nested: '{"k":"\\u0000\\ud800"}', e: "😀" },
    });
  });

  it("applies to imports too", () => {
    expect(reasonOf({ ...valid, message: "\u0000" }, { ...apple, mode: "import" })).toBe(reason("message"));
  });
});
