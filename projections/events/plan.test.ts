import { describe, expect, it } from "vitest";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { anIngestedEvent } from "../../test/support/ingested-event.ts";
import { planChunks } from "./plan.ts";

const APP = "11111111-1111-4111-8111-111111111111";
const OTHER_APP = "55555555-5555-4555-8555-555555555555";
const HOUR = 3_600_000;
let sequence = 0;

const event = (clientEventId: string | null): IngestedEvent =>
  anIngestedEvent({
    id: `e${(sequence += 1)}`,
    client_event_id: clientEventId,
    session_id: "s",
    message: "m",
    environment: "web",
    timestamp: "2026-11-21T12:00:00.000Z",
  });

const fact = (receivedMs: number, events: IngestedEvent[], appId = APP): EventsIngested => ({
  type: "EventsIngested",
  v: 1,
  id: "b",
  mode: "ingest",
  team_id: "t",
  project_id: "p",
  app_id: appId,
  platform: "web",
  api_key_id: "k",
  received_at: new Date(receivedMs).toISOString(),
  country_code: null,
  events,
});

const ids = (chunks: ReturnType<typeof planChunks>) => chunks.map((chunk) => chunk.parts.flatMap((part) => part.events.map((e) => e.id)));

describe("planChunks", () => {
  const T = Date.parse("2026-11-21T12:00:00.000Z");

  it("puts a batch into one statement and drops a repeat received no later than the first", () => {
    const a = event("a");
    const sameFact = event("a");
    const earlier = event("a");
    const noId = event(null);
    const elsewhere = event("a");
    const chunks = planChunks([fact(T, [a, sameFact, noId]), fact(T - HOUR, [earlier]), fact(T, [elsewhere], OTHER_APP)], 5_000);
    expect(ids(chunks)).toEqual([[a.id, noId.id, elsewhere.id]]);
    expect(chunks[0]).toMatchObject({ rows: 3, minReceivedMs: T, maxReceivedMs: T });
  });

  it("starts a new statement for a repeat received later, so the database judges it after the first", () => {
    // Were `first` a duplicate of an event stored 47 hours before it, `later` would be kept: only
    // the database knows, and it must see the first statement's rows to decide.
    const first = event("a");
    const later = event("a");
    const beyond = event("a");
    const chunks = planChunks([fact(T, [first]), fact(T + HOUR, [later, event(null)]), fact(T + 50 * HOUR, [beyond])], 5_000);
    expect(chunks.map((chunk) => chunk.rows)).toEqual([1, 2, 1]);
    expect(ids(chunks)[1]![0]).toBe(later.id);
    expect(ids(chunks)[2]).toEqual([beyond.id]);
  });

  it("splits at maxRows, keeping stream order and splitting a fact across statements", () => {
    const events = Array.from({ length: 5 }, () => event(null));
    const chunks = planChunks([fact(T, events.slice(0, 3)), fact(T + 1, events.slice(3))], 2);
    expect(ids(chunks)).toEqual([[events[0]!.id, events[1]!.id], [events[2]!.id, events[3]!.id], [events[4]!.id]]);
    expect(chunks[1]!.parts).toHaveLength(2);
  });

  it("plans nothing for facts without events", () => {
    expect(planChunks([fact(T, [])], 10)).toEqual([]);
  });
});
