import { describe, expect, it } from "vitest";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { planImport } from "./import-plan.ts";

const APP = "11111111-1111-4111-8111-111111111111";
const OTHER_APP = "55555555-5555-4555-8555-555555555555";

const event = (id: string, clientEventId: string | null, message = "m") => ({ id, client_event_id: clientEventId, message }) as IngestedEvent;

const fact = (events: IngestedEvent[], appId = APP) => ({ type: "EventsIngested", v: 1, mode: "import", app_id: appId, events }) as EventsIngested;

const rows = (parts: ReturnType<typeof planImport>) => parts.map((part) => part.events.map((e) => `${e.id}:${e.message}`));

describe("planImport", () => {
  it("keeps every event without a client_event_id", () => {
    expect(rows(planImport([fact([event("a", null), event("b", null)])]))).toEqual([["a:m", "b:m"]]);
  });

  it("keeps the last event of a repeated client_event_id under the first one's id, across facts", () => {
    const parts = planImport([fact([event("a", "x", "first"), event("b", "y")]), fact([event("c", "x", "second"), event("d", "x", "third")])]);
    expect(rows(parts)).toEqual([["b:m"], ["a:third"]]);
  });

  it("tells apps apart and drops facts left empty", () => {
    const parts = planImport([fact([event("a", "x")]), fact([event("b", "x")], OTHER_APP), fact([event("c", "x", "later")])]);
    expect(rows(parts)).toEqual([["b:m"], ["a:later"]]);
  });
});
