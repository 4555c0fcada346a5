import { describe, expect, it } from "vitest";
import { anIngestedEvent } from "../../test/support/ingested-event.ts";
import type { EventsIngested, IngestedEvent } from "../ingest/events.ts";
import { metricEventOf, parseDuration, parseMetricMessage } from "./derive.ts";

const batch = {
  type: "EventsIngested",
  v: 1,
  id: "00000000-0000-4000-8000-000000000001",
  mode: "ingest",
  team_id: "00000000-0000-4000-8000-000000000002",
  project_id: "00000000-0000-4000-8000-000000000003",
  app_id: "00000000-0000-4000-8000-000000000004",
  platform: "apple",
  api_key_id: "00000000-0000-4000-8000-000000000005",
  received_at: "2026-01-02T03:04:05.678Z",
  country_code: null,
  events: [],
} as EventsIngested;

const event = (message: string, custom_attributes: Record<string, string> = {}): IngestedEvent =>
  anIngestedEvent({
    id: "0190f0f0-0000-7000-8000-000000000009",
    session_id: "00000000-0000-4000-8000-000000000006",
    user_id: "u1",
    message,
    custom_attributes,
    os_version: "17.1",
    app_version: "1.2",
    build_number: "42",
    device_model: "iPhone15,2",
    timestamp: "2026-01-02T03:00:00.000Z",
  });

describe("parseMetricMessage", () => {
  it("reads metric:<slug>:<phase> for the five phases only", () => {
    expect(parseMetricMessage("metric:checkout:start")).toEqual({ slug: "checkout", phase: "start" });
    expect(parseMetricMessage("metric:app-launch-2:record")).toEqual({ slug: "app-launch-2", phase: "record" });
    for (const other of ["metric:checkout:finish", "metric:Checkout:start", "metric::start", "metric:a:start:b", "metrics:a:start", " metric:a:start", "checkout"]) {
      expect(parseMetricMessage(other), other).toBeNull();
    }
    expect(parseMetricMessage(`metric:${"a".repeat(101)}:start`)).toBeNull();
  });
});

describe("parseDuration", () => {
  it("takes non-negative decimal milliseconds and nothing else", () => {
    expect(parseDuration("120")).toBe(120);
    expect(parseDuration(" 12.5 ")).toBe(12.5);
    expect(parseDuration("0")).toBe(0);
    for (const bad of [undefined, "", "-3", "12ms", "1e3", "0x10", "NaN", "Infinity", "1."]) expect(parseDuration(bad), String(bad)).toBeNull();
  });
});

describe("metricEventOf", () => {
  it("takes tracking id, duration and error from the reserved attributes and keeps the others", () => {
    const row = metricEventOf(batch, event("metric:checkout:fail", { tracking_id: "ABCDEF00-0000-4000-8000-000000000000", duration_ms: "250", error: "timeout", plan: "pro" }));
    expect(row).toEqual({
      id: "0190f0f0-0000-7000-8000-000000000009",
      project_id: batch.project_id,
      app_id: batch.app_id,
      client_event_id: null,
      session_id: "00000000-0000-4000-8000-000000000006",
      user_id: "u1",
      api_key_id: batch.api_key_id,
      metric_slug: "checkout",
      phase: "fail",
      tracking_id: "abcdef00-0000-4000-8000-000000000000",
      duration_ms: 250,
      error: "timeout",
      attributes: { plan: "pro" },
      environment: "ios",
      os_version: "17.1",
      app_version: "1.2",
      device_model: "iPhone15,2",
      build_number: "42",
      is_dev: false,
      timestamp: "2026-01-02T03:00:00.000Z",
      received_at: batch.received_at,
    });
  });

  it("leaves missing or empty operation fields null and ignores other messages", () => {
    expect(metricEventOf(batch, event("metric:checkout:start", { tracking_id: "op-7", error: " " }))).toMatchObject({ tracking_id: "op-7", duration_ms: null, error: null, attributes: {} });
    expect(metricEventOf(batch, event("step:checkout"))).toBeNull();
  });
});
