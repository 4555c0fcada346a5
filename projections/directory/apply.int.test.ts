import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEnvelope, DomainEvent } from "../../domain/events.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import { onSubject, readModelDatabase, type ReadModelDatabase } from "../../test/support/projection.ts";
import { directoryProjection } from "./apply.ts";

const TEAM = "00000000-0000-4000-8000-00000000000a";
const OWNER = "00000000-0000-4000-8000-0000000000c1";
const MEMBER = "00000000-0000-4000-8000-0000000000c2";
const SUBJECT = `t.d.team.${TEAM}`;
const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

/** One command's facts on the team's subject, decided at `minute`. */
const decided = (minute: number, ...events: DomainEvent[]) => {
  const envelope: DomainEnvelope = { id: `command-${minute}`, at: at(minute), actor: SYSTEM_ACTOR, events };
  return onSubject(SUBJECT, envelope);
};

const teamCreated: DomainEvent = { type: "TeamCreated", v: 1, team_id: TEAM, name: "Team", slug: "team", created_by: OWNER, for_new_user: false };
const added = (user_id: string, role: "owner" | "admin" | "member"): DomainEvent => ({ type: "MemberAdded", v: 1, team_id: TEAM, user_id, role });

describe("directory: team members", () => {
  it("adds members with the time of the fact that added them, and records the team's version", async () => {
    const model = await database.given(directoryProjection, decided(0, teamCreated, added(OWNER, "owner")), decided(5, added(MEMBER, "member")));
    expect(await model.rows("team_members", "joined_at")).toEqual([
      { team_id: TEAM, user_id: OWNER, role: "owner", joined_at: at(0) },
      { team_id: TEAM, user_id: MEMBER, role: "member", joined_at: at(5) },
    ]);
    expect(await model.rows("aggregate_versions")).toEqual([{ subject: SUBJECT, last_seq: 2 }]);
  });

  it("changes a role in place, removes a member, and empties the team when it is deleted", async () => {
    const model = await database.given(
      directoryProjection,
      decided(0, teamCreated, added(OWNER, "owner")),
      decided(1, added(MEMBER, "member")),
      decided(2, { type: "MemberRoleChanged", v: 1, team_id: TEAM, user_id: MEMBER, role: "admin", previous_role: "member" }),
    );
    expect(await model.rows("team_members", "joined_at")).toMatchObject([{ user_id: OWNER, role: "owner" }, { user_id: MEMBER, role: "admin", joined_at: at(1) }]);
    await model.apply(decided(3, { type: "MemberRemoved", v: 1, team_id: TEAM, user_id: MEMBER, role: "admin", revoked_agent_key_ids: [] }));
    expect(await model.rows("team_members")).toMatchObject([{ user_id: OWNER }]);
    await model.apply(decided(4, { type: "TeamDeleted", v: 1, team_id: TEAM }));
    expect(await model.rows("team_members")).toEqual([]);
    expect(await model.rows("teams")).toMatchObject([{ id: TEAM, deleted_at: at(4) }]);
    expect(await model.rows("aggregate_versions")).toEqual([{ subject: SUBJECT, last_seq: 5 }]);
  });
});
