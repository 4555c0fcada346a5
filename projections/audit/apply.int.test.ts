import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEnvelope, DomainEvent } from "../../domain/events.ts";
import { newId } from "../../domain/shared/ids.ts";
import { readModelDatabase, type ReadModelDatabase } from "../../test/support/projection.ts";
import { auditProjection } from "./apply.ts";

const TEAM = "00000000-0000-4000-8000-00000000000a";
const OWNER = "00000000-0000-4000-8000-0000000000c1";
const MEMBER = "00000000-0000-4000-8000-0000000000c2";

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

const byOwner = (at: string, ...events: DomainEvent[]): DomainEnvelope => ({ id: newId(), at, actor: { type: "user", id: OWNER }, events });

describe("audit: entries of team facts", () => {
  it("writes one entry per change with the actor and time of its command, and a replay writes the very same rows", async () => {
    const facts = [
      byOwner("2026-03-01T10:00:00.000Z", { type: "TeamCreated", v: 1, team_id: TEAM, name: "Team", slug: "team", created_by: OWNER, for_new_user: true }),
      byOwner("2026-03-01T10:05:00.000Z", { type: "MemberAdded", v: 1, team_id: TEAM, user_id: MEMBER, role: "member" }),
      byOwner("2026-03-01T10:06:00.000Z", { type: "TeamRenamed", v: 1, team_id: TEAM, name: "Renamed", previous_name: "Team" }),
    ];
    const live = await database.given(auditProjection, ...facts);
    const rows = await live.rows("audit_logs", "timestamp", "resource_type");
    expect(rows).toMatchObject([
      { action: "create", resource_type: "team", resource_id: TEAM, metadata: { name: "Team", slug: "team" }, timestamp: "2026-03-01T10:00:00.000Z" },
      { action: "create", resource_type: "user", resource_id: OWNER, actor_type: "user", actor_id: OWNER },
      { action: "create", resource_type: "team_member", resource_id: MEMBER, metadata: { role: "member" } },
      { action: "update", resource_type: "team", changes: { name: { before: "Team", after: "Renamed" } }, timestamp: "2026-03-01T10:06:00.000Z" },
    ]);
    // Entry ids are derived from the fact, not drawn at random: a rebuilt generation matches row for row.
    const replayed = await database.given(auditProjection, ...facts);
    expect(await replayed.rows("audit_logs", "timestamp", "resource_type")).toEqual(rows);
  });
});
