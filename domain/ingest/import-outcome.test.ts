import { describe, expect, it } from "vitest";
import type { IngestedEvent } from "./events.ts";
import { importOutcome } from "./import-outcome.ts";

const event = (client_event_id: string | null) => ({ client_event_id }) as IngestedEvent;

describe("importOutcome", () => {
  it("counts events without a client_event_id as new, always", () => {
    expect(importOutcome([event(null), event(null)], new Set())).toEqual({ accepted: 2, updated: 0 });
  });

  it("counts a client_event_id the app holds as an update", () => {
    expect(importOutcome([event("a"), event("b")], new Set(["a"]))).toEqual({ accepted: 1, updated: 1 });
  });

  it("counts repeats inside the batch as updates of the first occurrence", () => {
    expect(importOutcome([event("a"), event("a"), event("b"), event("a")], new Set())).toEqual({ accepted: 2, updated: 2 });
    expect(importOutcome([event("a"), event("a")], new Set(["a"]))).toEqual({ accepted: 0, updated: 2 });
  });
});
