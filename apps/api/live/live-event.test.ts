import { describe, expect, it } from "vitest";
import type { EventsIngested, IngestedEvent } from "../../../domain/ingest/events.ts";
import type { EventFilter } from "../../../projections/events/queries.ts";
import { liveEvent, matchesFilter } from "./live-event.ts";

const event: IngestedEvent = {
  id: "019ab2c3-d4e5-7f60-8a7b-9c0d1e2f3a4b",
  client_event_id: null,
  session_id: "7b8c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e",
  user_id: "u1",
  level: "warn",
  source_module: null,
  message: "slow checkout",
  screen_name: "Cart",
  custom_attributes: { plan: "yearly" },
  environment: "ios",
  os_version: null,
  app_version: "2.3.0",
  sdk_name: null,
  sdk_version: null,
  build_number: null,
  device_model: null,
  locale: null,
  is_dev: false,
  timestamp: "2026-11-25T12:00:00.000Z",
};

const all: EventFilter = { dataMode: "all" };

describe("matchesFilter", () => {
  it("passes an event every given filter accepts", () => {
    expect(matchesFilter(event, all)).toBe(true);
    expect(
      matchesFilter(event, {
        dataMode: "production",
        levels: ["warn", "error"],
        userId: "u1",
        sessionId: event.session_id,
        environment: "ios",
        screenName: "Cart",
        since: new Date("2026-11-25T12:00:00.000Z"),
        until: new Date("2026-11-25T12:00:00.000Z"),
      }),
    ).toBe(true);
  });

  it("drops an event any one filter refuses", () => {
    expect(matchesFilter(event, { ...all, levels: ["error"] })).toBe(false);
    expect(matchesFilter(event, { ...all, userId: "u2" })).toBe(false);
    expect(matchesFilter({ ...event, user_id: null }, { ...all, userId: "u1" })).toBe(false);
    expect(matchesFilter(event, { ...all, sessionId: "00000000-0000-4000-8000-000000000000" })).toBe(false);
    expect(matchesFilter(event, { ...all, environment: "android" })).toBe(false);
    expect(matchesFilter(event, { ...all, screenName: "cart" })).toBe(false);
    expect(matchesFilter(event, { ...all, since: new Date("2026-11-25T12:00:00.001Z") })).toBe(false);
    expect(matchesFilter(event, { ...all, until: new Date("2026-11-25T11:59:59.999Z") })).toBe(false);
    expect(matchesFilter(event, { dataMode: "development" })).toBe(false);
    expect(matchesFilter({ ...event, is_dev: true }, { dataMode: "production" })).toBe(false);
  });

  it("treats an empty level list as no level filter", () => {
    expect(matchesFilter(event, { ...all, levels: [] })).toBe(true);
  });
});

describe("liveEvent", () => {
  it("takes the batch-wide fields from the batch and the rest from the event", () => {
    const batch = {
      app_id: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
      api_key_id: "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
      received_at: "2026-11-25T12:00:00.412Z",
      country_code: "US",
    } as EventsIngested;
    expect(liveEvent(batch, event)).toEqual({ ...event, app_id: batch.app_id, api_key_id: batch.api_key_id, received_at: batch.received_at, country_code: "US" });
  });
});
