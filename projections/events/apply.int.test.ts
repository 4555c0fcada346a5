import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventsIngested } from "../../domain/ingest/events.ts";
import { anEventsIngested, anIngestedEvent } from "../../test/support/ingested-event.ts";
import { readModelDatabase, type ReadModelDatabase } from "../../test/support/projection.ts";
import { eventsProjection } from "./apply.ts";

const HOUR = 3_600_000;
const received = (hoursAfterFirst: number) => new Date(Date.parse("2026-01-02T03:01:00.000Z") + hoursAfterFirst * HOUR).toISOString();

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

/** What a stored row holds besides the event's own fields: the batch-wide values of its fact. */
const batchValues = ({ app_id, project_id, api_key_id, country_code, received_at }: EventsIngested) => ({ app_id, project_id, api_key_id, country_code, received_at });

describe("events: ingested batches", () => {
  it("stores every event of a batch with its own fields and the batch's app, key, country and receipt", async () => {
    const first = anIngestedEvent({ user_id: "ann", custom_attributes: { plan: "pro" }, client_event_id: randomUUID(), app_version: "2.1" });
    const second = anIngestedEvent({ message: "purchase", level: "warn", timestamp: "2026-02-10T08:00:00.000Z", is_dev: true });
    const batch = anEventsIngested([first, second], { country_code: "DE" });
    const model = await database.given(eventsProjection, batch);
    // The two events fall in two months: each goes to its month's partition, and both read back through `events`.
    expect(await model.rows("events", "timestamp")).toEqual([
      { ...first, ...batchValues(batch) },
      { ...second, ...batchValues(batch) },
    ]);
  });

  it("skips a client_event_id received again within 48 hours, and keeps it once the first is older", async () => {
    const clientEventId = randomUUID();
    const copy = (message: string) => anIngestedEvent({ client_event_id: clientEventId, message });
    const model = await database.given(
      eventsProjection,
      anEventsIngested([copy("first")], { received_at: received(0) }),
      anEventsIngested([copy("resent")], { received_at: received(47) }),
    );
    await model.apply(anEventsIngested([copy("later")], { received_at: received(49) }));
    expect((await model.rows("events", "received_at")).map((row) => row.message)).toEqual(["first", "later"]);
  });
});
