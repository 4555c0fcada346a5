import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEventsIngested, anIngestedEvent } from "../../test/support/ingested-event.ts";
import { readModelDatabase, type ReadModelDatabase } from "../../test/support/projection.ts";
import { metricEventsProjection } from "./apply.ts";

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

const at = (minute: number) => `2026-01-02T03:${String(minute).padStart(2, "0")}:00.000Z`;

describe("metric_events: rows and hourly counts", () => {
  it("keeps only metric events, and counts them per hour and phase in the same batch", async () => {
    const batch = anEventsIngested([
      anIngestedEvent({ message: "metric:checkout:start", timestamp: at(10) }),
      anIngestedEvent({ message: "screen_view", timestamp: at(11) }),
      anIngestedEvent({ message: "metric:checkout:complete", timestamp: at(12), custom_attributes: { duration_ms: "250" } }),
      anIngestedEvent({ message: "metric:checkout:fail", timestamp: at(13), custom_attributes: { error: "timeout" } }),
    ]);
    const model = await database.given(metricEventsProjection, batch);
    expect((await model.rows("metric_events", "timestamp")).map((row) => [row.phase, row.duration_ms, row.error])).toEqual([
      ["start", null, null],
      ["complete", 250, null],
      ["fail", null, "timeout"],
    ]);
    expect(await model.rows("metric_hourly", "phase")).toMatchObject([
      { metric_slug: "checkout", hour: "2026-01-02T03:00:00.000Z", phase: "complete", events: 1, durations: 1, duration_sum: 250 },
      { phase: "fail", events: 1, durations: 0 },
      { phase: "start", events: 1, durations: 0 },
    ]);
    expect(await model.rows("metric_error_hourly")).toMatchObject([{ error: "timeout", events: 1 }]);
  });
});
