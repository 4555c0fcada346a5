import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DomainEnvelope } from "../../domain/events.ts";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import type { RetentionOverrides } from "../../domain/projects/retention.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import { aProjectCreated } from "../../test/support/control-facts.ts";
import { anEventsIngested, anIngestedEvent } from "../../test/support/ingested-event.ts";
import { onSubject, readModelDatabase, type ProjectedReadModel, type ReadModelDatabase } from "../../test/support/projection.ts";
import { eventsProjection } from "../events/apply.ts";
import { funnelEventsProjection } from "../funnel-events/apply.ts";
import { metricEventsProjection } from "../metric-events/apply.ts";

/**
 * The events, metric events and funnel events projectors write no row whose timestamp is past its
 * project's retention of that read model (read from the directory), so a replay of old history,
 * an import of it above all, brings nothing expired back.
 */

const DAY = 86_400_000;
const now = Date.now();
const daysAgo = (days: number) => new Date(now - days * DAY).toISOString();

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

/** A new project in the directory with these retention overrides (the others default). */
async function aProject(overrides: Partial<RetentionOverrides>): Promise<string> {
  const projectId = randomUUID();
  const teamId = randomUUID();
  const created = aProjectCreated({ project_id: projectId, team_id: teamId, slug: `p-${projectId.slice(0, 8)}`, ...overrides });
  const envelope: DomainEnvelope = { id: randomUUID(), at: new Date(now).toISOString(), actor: SYSTEM_ACTOR, events: [created] };
  await database.directory(onSubject(`t.d.team.${teamId}`, envelope));
  return projectId;
}

const imported = (projectId: string, events: IngestedEvent[]): EventsIngested =>
  anEventsIngested(events, { id: randomUUID(), mode: "import", project_id: projectId, received_at: new Date(now).toISOString() });

const messages = async (model: ProjectedReadModel, table: string) => (await model.rows(table, "timestamp")).map((row) => row.message);

describe("events projector", () => {
  it("writes an import's events within the project's event retention and none older, not even their month's partition", async () => {
    const projectId = await aProject({ retention_days_events: 30 });
    const batch = imported(projectId, [
      anIngestedEvent({ message: "two years ago", timestamp: daysAgo(730), client_event_id: randomUUID() }),
      anIngestedEvent({ message: "31 days ago", timestamp: daysAgo(31) }),
      anIngestedEvent({ message: "29 days ago", timestamp: daysAgo(29), client_event_id: randomUUID() }),
      anIngestedEvent({ message: "an hour ago", timestamp: daysAgo(1 / 24) }),
    ]);
    const model = await database.given(eventsProjection, batch);
    expect(await messages(model, "events")).toEqual(["29 days ago", "an hour ago"]);
    const partitions = await model.read((tx) =>
      tx.anyFirst(sql.type(z.object({ name: z.string() }))`
        select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${`${model.schema}.events`}::regclass`),
    );
    expect(partitions).not.toContain(`events_p${daysAgo(730).slice(0, 7).replace("-", "")}`);
  });

  it("skips ingested events past the retention too, and keeps every event of a project the directory does not hold", async () => {
    const projectId = await aProject({ retention_days_events: 7 });
    const ingested = anEventsIngested([anIngestedEvent({ message: "8 days ago", timestamp: daysAgo(8) }), anIngestedEvent({ message: "6 days ago", timestamp: daysAgo(6) })], {
      id: randomUUID(),
      project_id: projectId,
      received_at: new Date(now).toISOString(),
    });
    const unknown = imported(randomUUID(), [anIngestedEvent({ message: "unknown project, two years ago", timestamp: daysAgo(730) })]);
    const model = await database.given(eventsProjection, ingested, unknown);
    expect(await messages(model, "events")).toEqual(["unknown project, two years ago", "6 days ago"]);
  });

  it("removes a stored event an import moves past the retention, with its retimed timestamp", async () => {
    const projectId = await aProject({ retention_days_events: 30 });
    const stored = anIngestedEvent({ client_event_id: randomUUID(), message: "stored", timestamp: daysAgo(1) });
    const model = await database.given(eventsProjection, imported(projectId, [stored]));
    await model.apply(imported(projectId, [{ ...stored, message: "moved", timestamp: daysAgo(20) }]));
    expect(await messages(model, "events")).toEqual(["moved"]);
    expect(await model.rows("event_retimed")).toHaveLength(1);
    await model.apply(imported(projectId, [{ ...stored, message: "expired", timestamp: daysAgo(40) }]));
    expect(await model.rows("events")).toEqual([]);
    expect(await model.rows("event_retimed")).toEqual([]);
  });
});

describe("metric events projector", () => {
  it("writes metric events and hourly counts only within the project's metric retention; an import moving one past it removes row and count", async () => {
    const projectId = await aProject({ retention_days_events: 1, retention_days_metrics: 60 });
    const key = randomUUID();
    const model = await database.given(
      metricEventsProjection,
      imported(projectId, [
        anIngestedEvent({ message: "metric:checkout:complete", timestamp: daysAgo(90) }),
        anIngestedEvent({ message: "metric:checkout:complete", timestamp: daysAgo(10), client_event_id: key }),
      ]),
    );
    expect((await model.rows("metric_events")).map((row) => row.timestamp)).toEqual([daysAgo(10)]);
    expect((await model.rows("metric_hourly")).map((row) => row.events)).toEqual([1]);

    await model.apply(imported(projectId, [anIngestedEvent({ message: "metric:checkout:fail", timestamp: daysAgo(61), client_event_id: key })]));
    expect(await model.rows("metric_events")).toEqual([]);
    expect((await model.rows("metric_hourly")).map((row) => row.events)).toEqual([0]);
  });
});

describe("funnel events projector", () => {
  it("writes funnel events only within the project's funnel retention, ingested or imported", async () => {
    const projectId = await aProject({ retention_days_funnels: 15 });
    const ingested = anEventsIngested(
      [anIngestedEvent({ message: "step:open", timestamp: daysAgo(16), user_id: "late" }), anIngestedEvent({ message: "step:open", timestamp: daysAgo(1), user_id: "recent" })],
      { id: randomUUID(), project_id: projectId, received_at: new Date(now).toISOString() },
    );
    const model = await database.given(
      funnelEventsProjection,
      ingested,
      imported(projectId, [
        anIngestedEvent({ message: "step:open", timestamp: daysAgo(20), user_id: "old" }),
        anIngestedEvent({ message: "step:open", timestamp: daysAgo(5), user_id: "recent" }),
        anIngestedEvent({ message: "screen_view", timestamp: daysAgo(5), user_id: "recent" }),
      ]),
    );
    expect((await model.rows("funnel_events", "timestamp")).map((row) => row.timestamp)).toEqual([daysAgo(5), daysAgo(1)]);
  });
});
