import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEnvelope, DomainEvent } from "../../domain/events.ts";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import { aProjectCreated } from "../../test/support/control-facts.ts";
import { anEventsIngested, anIngestedEvent } from "../../test/support/ingested-event.ts";
import { onSubject, readModelDatabase, type ProjectedReadModel, type ReadModelDatabase } from "../../test/support/projection.ts";
import { eventsProjection } from "./apply.ts";
import { countEvents } from "./count.ts";
import { WHOLE_PROJECT } from "./rollups.ts";
import type { EventFilter, Viewer } from "./queries.ts";

/**
 * The count rollups: they hold exactly what the rows hold after ingests, duplicates and imports
 * that move events; a replay rebuilds them identically; and the count route's query answers
 * exactly (counts always, distinct counts under its threshold) wherever its window starts and
 * ends, events on bucket and window boundaries included.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const now = Date.now();
/** Three whole hours ago: the events sit around the following hour and minute boundaries. */
const base = Math.floor(now / HOUR) * HOUR - 3 * HOUR;
const at = (ms: number) => new Date(base + ms).toISOString();

const teamId = randomUUID();
const projectId = randomUUID();
const apps = [randomUUID(), randomUUID()] as const;
const viewer: Viewer = { kind: "team", teamId };

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
  const created: DomainEvent[] = [
    aProjectCreated({ project_id: projectId, team_id: teamId, slug: `p-${projectId.slice(0, 8)}` }),
    ...apps.map((appId, index): DomainEvent => ({
      type: "AppCreated",
      v: 1,
      app_id: appId,
      team_id: teamId,
      project_id: projectId,
      name: `App ${index}`,
      platform: "apple",
      bundle_id: `com.example.count${index}`,
      client_key_id: randomUUID(),
    })),
  ];
  const envelope: DomainEnvelope = { id: randomUUID(), at: new Date(now).toISOString(), actor: SYSTEM_ACTOR, events: created };
  await database.directory(onSubject(`t.d.team.${teamId}`, envelope));
});
afterAll(async () => database?.drop());

const sessions = Array.from({ length: 4 }, () => randomUUID());
const duplicateKey = randomUUID();
const movedKey = randomUUID();

/** Events on and next to hour and minute boundaries, in both apps, over every rollup dimension. */
function events(app: number): IngestedEvent[] {
  const offsets = [-1, 0, 1, MINUTE - 1, MINUTE, 30_000, HOUR - 1, HOUR, HOUR + 1, HOUR + 30 * MINUTE + 5, 2 * HOUR - MINUTE, 2 * HOUR + 7];
  return offsets.map((offset, index) =>
    anIngestedEvent({
      timestamp: at(offset),
      user_id: index % 5 === 0 ? null : `user-${app}-${index % 3}`,
      session_id: sessions[(index + app) % sessions.length]!,
      level: (["info", "debug", "warn", "error"] as const)[index % 4],
      environment: index % 3 === 0 ? "ipados" : "ios",
      is_dev: index % 4 === 1,
      client_event_id: index === 2 ? duplicateKey : index === 5 ? movedKey : null,
    }),
  );
}

const received = (ms: number) => new Date(base + ms).toISOString();
const ingested = (app: number, list: IngestedEvent[], mode: "ingest" | "import" = "ingest", receivedAt = received(3 * HOUR)): EventsIngested =>
  anEventsIngested(list, { id: randomUUID(), mode, team_id: teamId, project_id: projectId, app_id: apps[app], received_at: receivedAt });

const facts: EventsIngested[] = [
  ingested(0, events(0)),
  ingested(1, events(1)),
  // A duplicate of a kept event (same client_event_id within 48 hours): skipped, counted nowhere.
  ingested(0, [anIngestedEvent({ timestamp: at(5 * MINUTE), client_event_id: duplicateKey, user_id: "someone else" })], "ingest", received(3 * HOUR + MINUTE)),
  // An import that moves a stored event to another minute, hour, level and environment.
  ingested(0, [anIngestedEvent({ timestamp: at(HOUR + 45 * MINUTE), client_event_id: movedKey, level: "error", environment: "ipados", user_id: "importer" })], "import"),
];

let model: ProjectedReadModel;
beforeAll(async () => {
  model = await database.given(eventsProjection, ...facts);
});

/** Every rollup row with its sketches' cardinalities and bytes (as text). */
const countsOf = (m: ProjectedReadModel, table: string, bucket: "minute" | "hour") =>
  m.read((tx) =>
    tx.any(sql.unsafe`
      select project_id, app_id, ${sql.identifier([bucket])} as bucket, is_dev, events, errors, round(hll_cardinality(users))::int as users,
             round(hll_cardinality(sessions))::int as sessions, users::text as user_sketch, sessions::text as session_sketch
        from ${sql.identifier([table])} order by project_id, app_id, bucket, is_dev`),
  );

describe("count rollups", () => {
  it("total each app and the whole project by minute, hour and is_dev, all events and the errors, as the rows hold them after duplicates and a moving import", async () => {
    for (const [stride, table, bucket] of [
      ["1 minute", "event_totals_minute", "minute"],
      ["1 hour", "event_totals_hour", "hour"],
    ] as const) {
      const totals = await model.read((tx) =>
        tx.any(sql.unsafe`
          select app_id, ${sql.identifier([bucket])} as bucket, is_dev, events, errors from ${sql.identifier([table])} where events <> 0 order by 1, 2, 3`),
      );
      const fromRows = await model.read((tx) =>
        tx.any(sql.unsafe`
          select coalesce(app_id, ${WHOLE_PROJECT}::uuid) as app_id, date_bin(${stride}::interval, "timestamp", 'epoch') as bucket, is_dev, count(*)::bigint as events,
                 (count(*) filter (where level = 'error'))::bigint as errors
            from events group by grouping sets ((app_id, 2, is_dev), (2, is_dev)) order by 1, 2, 3`),
      );
      expect(totals).toEqual(fromRows);
    }
    expect(await model.read((tx) => tx.oneFirst(sql.unsafe`select count(*)::int from events`))).toBe(24);
  });

  it("are rebuilt identically, sketches included, by a replay that batches the facts differently", async () => {
    const replayed = await database.given(eventsProjection);
    for (const fact of facts) await replayed.apply(fact);
    for (const [table, bucket] of [
      ["event_totals_minute", "minute"],
      ["event_totals_hour", "hour"],
    ] as const) {
      const rows = await countsOf(model, table, bucket);
      expect(rows.length).toBeGreaterThan(0);
      expect(await countsOf(replayed, table, bucket)).toEqual(rows);
    }
  });
});

describe("countEvents", () => {
  const count = (filter: Partial<EventFilter>, exactUpTo?: number) =>
    model.read((tx) => countEvents(tx, viewer, { dataMode: "all", ...filter }, exactUpTo === undefined ? {} : { exactUpTo }));

  /** Instants on, just before and just after every boundary the events sit on. */
  const edges = [-1, 0, 1, MINUTE - 1, MINUTE, 30_000, HOUR - 1, HOUR, HOUR + 1, HOUR + 45 * MINUTE, 2 * HOUR - MINUTE, 2 * HOUR + 7, 2 * HOUR + 8].flatMap(
    (ms) => [ms - 1, ms, ms + 1],
  );

  it("counts every event of the window exactly once through rollups and edge rows, both ends inclusive", async () => {
    const filters: Partial<EventFilter>[] = [{}, { appId: apps[1] }, { dataMode: "production" }, { appId: apps[0], dataMode: "development" }];
    let windows = 0;
    for (const [i, since] of edges.entries()) {
      for (const until of edges.slice(i).filter((_, j) => j % 7 === 0)) {
        for (const filter of filters.filter((_, k) => (i + k) % 3 === 0)) {
          const window = { ...filter, since: new Date(base + since), until: new Date(base + until) };
          const exact = await count(window);
          const estimated = await count(window, -1);
          expect(exact.estimated).toBe(false);
          expect(estimated.estimated).toBe(true);
          // A handful of values: the sketches are exact at this size.
          expect({ ...estimated, estimated: false }).toEqual(exact);
          windows += 1;
        }
      }
    }
    expect(windows).toBeGreaterThan(50);
    expect(await count({ since: new Date(base), until: new Date(base) })).toEqual({ count: 2, unique_users: 2, unique_sessions: 2, estimated: false });
  });

  it("answers exactly up to the threshold and estimates above it, and reads the rows for user, session and screen filters", async () => {
    const whole = { since: new Date(base - HOUR), until: new Date(base + 3 * HOUR) };
    expect(await count(whole, 24)).toMatchObject({ count: 24, estimated: false });
    expect(await count(whole, 23)).toMatchObject({ count: 24, estimated: true });
    expect(await count({})).toMatchObject({ count: 24, estimated: false });
    expect(await count({ userId: "importer" }, -1)).toEqual({ count: 1, unique_users: 1, unique_sessions: 1, estimated: false });
    expect(await count({ levels: ["error"], environment: "ipados" }, -1)).toMatchObject({ count: 3, estimated: false });
    expect(await count({ screenName: "nowhere" }, -1)).toEqual({ count: 0, unique_users: 0, unique_sessions: 0, estimated: false });
  });
});

describe("countEvents after an app is deleted", () => {
  it("reads the remaining apps' own rollups instead of the project's, which still count the deleted app", async () => {
    const deleted: DomainEvent = { type: "AppDeleted", v: 1, app_id: apps[1], team_id: teamId, project_id: projectId };
    const envelope: DomainEnvelope = { id: randomUUID(), at: new Date(now).toISOString(), actor: SYSTEM_ACTOR, events: [deleted] };
    await database.directory(onSubject(`t.d.team.${teamId}`, envelope));
    const filter: EventFilter = { projectId, dataMode: "all", since: new Date(base - HOUR), until: new Date(base + 3 * HOUR) };
    const exact = await model.read((tx) => countEvents(tx, viewer, filter));
    expect(exact).toEqual({ count: 12, unique_users: 4, unique_sessions: 5, estimated: false });
    expect(await model.read((tx) => countEvents(tx, viewer, filter, { exactUpTo: -1 }))).toEqual({ ...exact, estimated: true });
  });
});
