import { describe, expect, it } from "vitest";
import type { EventsIngested, IngestedEvent } from "../ingest/events.ts";
import { funnelEventOf, parseStepMessage } from "./derive.ts";

describe("parseStepMessage", () => {
  it("reads step:<name> with any non-empty name up to 255 characters", () => {
    expect(parseStepMessage("step:open")).toBe("open");
    expect(parseStepMessage("step:Add to cart: big")).toBe("Add to cart: big");
    expect(parseStepMessage("step:")).toBeNull();
    expect(parseStepMessage("steps:open")).toBeNull();
    expect(parseStepMessage(`step:${"x".repeat(255)}`)).toHaveLength(255);
    expect(parseStepMessage(`step:${"x".repeat(256)}`)).toBeNull();
  });
});

describe("funnelEventOf", () => {
  it("keeps the step, the screen and the fields funnels filter and break down by", () => {
    const batch = { project_id: "p", app_id: "a", received_at: "2026-01-02T00:00:00.000Z" } as EventsIngested;
    const event = {
      id: "e",
      client_event_id: "c",
      session_id: "s",
      user_id: "u",
      message: "step:pay",
      screen_name: "Payment",
      environment: "web",
      app_version: "3.0",
      os_version: null,
      device_model: null,
      is_dev: true,
      timestamp: "2026-01-01T00:00:00.000Z",
    } as IngestedEvent;
    expect(funnelEventOf(batch, event)).toEqual({
      id: "e",
      project_id: "p",
      app_id: "a",
      client_event_id: "c",
      session_id: "s",
      user_id: "u",
      step_name: "pay",
      screen_name: "Payment",
      environment: "web",
      app_version: "3.0",
      os_version: null,
      device_model: null,
      is_dev: true,
      timestamp: "2026-01-01T00:00:00.000Z",
      received_at: "2026-01-02T00:00:00.000Z",
    });
    expect(funnelEventOf(batch, { ...event, message: "metric:pay:start" })).toBeNull();
  });
});
