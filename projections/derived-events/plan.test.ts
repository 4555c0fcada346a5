import { describe, expect, it } from "vitest";
import type { UserClaimed } from "../../domain/identity/events.ts";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { metricEventOf } from "../../domain/metrics/derive.ts";
import { anIngestedEvent } from "../../test/support/ingested-event.ts";
import type { Fact } from "../_runtime/projection.ts";
import { planDerived } from "./plan.ts";

const APP = "00000000-0000-4000-8000-00000000000a";
const HOUR = 3_600_000;
let seq = 0;

function event(id: string, message: string, clientEventId: string | null, timestamp = "2026-01-10T00:00:00.000Z"): IngestedEvent {
  return anIngestedEvent({ id, client_event_id: clientEventId, session_id: "00000000-0000-4000-8000-000000000006", user_id: "u", message, timestamp });
}

function fact(mode: "ingest" | "import", receivedMs: number, events: IngestedEvent[]): Fact {
  const batch: EventsIngested = {
    type: "EventsIngested",
    v: 1,
    id: "00000000-0000-4000-8000-000000000001",
    mode,
    team_id: "00000000-0000-4000-8000-000000000002",
    project_id: "00000000-0000-4000-8000-000000000003",
    app_id: APP,
    platform: "apple",
    api_key_id: "00000000-0000-4000-8000-000000000005",
    received_at: new Date(receivedMs).toISOString(),
    country_code: null,
    events,
  };
  return { seq: ++seq, subject: "t.i.p.a", data: new TextEncoder().encode(JSON.stringify(batch)) };
}

const METRICS = { row: metricEventOf, messagePrefix: "metric:" };
const raw = (value: object): Fact => ({ seq: ++seq, subject: "t.i.p.u.x", data: new TextEncoder().encode(JSON.stringify(value)) });
const T0 = Date.parse("2026-01-10T00:00:00Z");

describe("planDerived", () => {
  it("keeps derived rows only; a later repeat of a client_event_id within 48 hours starts a new step", async () => {
    const plan = await planDerived(
      [
        fact("ingest", T0, [event("e1", "metric:a:start", "c1"), event("e2", "hello", "c2")]),
        fact("ingest", T0 + HOUR, [event("e3", "metric:a:start", "c1"), event("e4", "metric:a:record", null)]),
        fact("ingest", T0 + 49 * HOUR, [event("e5", "metric:a:complete", "c1", "2026-02-01T00:00:00.000Z")]),
      ],
      METRICS,
      1_000,
    );
    // e3 may be kept (if e1 is a duplicate of an event stored 47 hours before it), so the database
    // judges it after e1's statement; e5 likewise after e3's.
    expect(plan.steps.map((step) => [step.kind, step.kind === "claim" ? [] : step.rows.map((row) => row.id)])).toEqual([
      ["insert", ["e1"]],
      ["insert", ["e3", "e4"]],
      ["insert", ["e5"]],
    ]);
    expect([...plan.months].sort()).toEqual(["2026-01", "2026-02"]);
    expect([...plan.dedupDays].sort()).toEqual(["2026-01-10", "2026-01-12"]);
  });

  it("keys imports by client_event_id: the last event wins under the first one's id", async () => {
    const plan = await planDerived(
      [
        fact("import", T0, [event("i1", "metric:a:start", "k1"), event("i2", "metric:a:start", "k2"), event("i3", "metric:a:record", null)]),
        fact("import", T0, [event("i4", "metric:a:fail", "k1"), event("i5", "not a metric", "k2")]),
      ],
      METRICS,
      1_000,
    );
    expect(plan.steps).toHaveLength(1);
    const step = plan.steps[0]!;
    if (step.kind !== "replace") throw new Error("expected a replace step");
    expect(step.keys).toEqual([
      { app_id: APP, client_event_id: "k1" },
      { app_id: APP, client_event_id: "k2" },
    ]);
    expect(step.rows.map((row) => [row.id, row.phase])).toEqual([
      ["i3", "record"],
      ["i1", "fail"],
    ]);
  });

  it("keeps stream order across modes and claims, skips facts of other types and splits large steps", async () => {
    const claim: UserClaimed = {
      type: "UserClaimed",
      v: 1,
      id: "00000000-0000-4000-8000-0000000000c1",
      team_id: "00000000-0000-4000-8000-000000000002",
      project_id: "00000000-0000-4000-8000-000000000003",
      app_id: APP,
      at: "2026-01-10T00:00:00.000Z",
      app_ids: [APP],
      anonymous_id: "svc_anon_1",
      user_id: "known",
    };
    const plan = await planDerived(
      [
        fact("ingest", T0, [event("a", "metric:a:start", null), event("b", "metric:a:start", null)]),
        fact("ingest", T0, [event("c", "metric:a:start", null)]),
        raw(claim),
        raw({ type: "SomethingNew", v: 1 }),
        fact("import", T0, [event("d", "metric:a:start", "k")]),
        fact("ingest", T0, [event("e", "metric:a:start", null)]),
      ],
      METRICS,
      2,
    );
    expect(plan.steps.map((step) => step.kind)).toEqual(["insert", "insert", "claim", "replace", "insert"]);
  });

  it("drops a repeat received no later than the row already in the step, and judges a repeat beyond the window with its step", async () => {
    const plan = await planDerived(
      [
        fact("ingest", T0, [event("a1", "metric:a:start", "c1"), event("a2", "metric:a:start", "c1")]),
        fact("ingest", T0 - HOUR, [event("a3", "metric:a:start", "c1")]),
        fact("ingest", T0 + 49 * HOUR, [event("a4", "metric:a:start", "c1")]),
      ],
      METRICS,
      1_000,
    );
    expect(plan.steps.map((step) => (step.kind === "claim" ? [] : step.rows.map((row) => row.id)))).toEqual([["a1", "a4"]]);
  });

  it("reads only the header of an ingest batch without a metric message, and whole batches otherwise", async () => {
    const plain = fact("ingest", T0 + HOUR, [event("p1", "hello", "c1")]);
    // Cut inside the event list: only a reader that never parses the list can take it.
    const text = new TextDecoder().decode(plain.data);
    const cut: Fact = { ...plain, seq: ++seq, data: new TextEncoder().encode(text.slice(0, text.indexOf('"events":[') + 15)) };
    const disguised = fact("ingest", T0, [{ ...event("p2", "hello", "c2"), custom_attributes: { message: "metric:a:start" } }]);
    const batch = JSON.parse(new TextDecoder().decode(fact("ingest", T0, [event("p3", "metric:a:start", null)]).data));
    const listFirst: Fact = { seq: ++seq, subject: "t.i.p.a", data: new TextEncoder().encode(JSON.stringify({ events: batch.events, ...batch })) };
    const plan = await planDerived([plain, cut, disguised, listFirst], METRICS, 1_000);
    expect(plan.steps.map((step) => (step.kind === "claim" ? [] : step.rows.map((row) => row.id)))).toEqual([["p3"]]);
    expect(plan.maxReceivedMs).toBe(T0 + HOUR);
    expect([...plan.dedupDays]).toEqual([]);
  });
});
