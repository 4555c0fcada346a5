import { describe, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import type { Role } from "../shared/roles.ts";
import { teamDecider } from "./decider.ts";

const teamCreated: DomainEvent = { type: "TeamCreated", v: 1, team_id: "team", name: "Team", slug: "team", created_by: "owner", for_new_user: false };
const memberAdded = (userId: string, role: Role): DomainEvent => ({ type: "MemberAdded", v: 1, team_id: "team", user_id: userId, role });
const roleChanged = (userId: string, role: Role, previous: Role): DomainEvent => ({
  type: "MemberRoleChanged",
  v: 1,
  team_id: "team",
  user_id: userId,
  role,
  previous_role: previous,
});
const memberRemoved = (userId: string, role: Role, revoked: string[] = []): DomainEvent => ({
  type: "MemberRemoved",
  v: 1,
  team_id: "team",
  user_id: userId,
  role,
  revoked_agent_key_ids: revoked,
});
const keyCreated = (keyId: string, createdBy: string, keyType: "agent" | "client" = "agent"): DomainEvent => ({
  type: "ApiKeyCreated",
  v: 1,
  key_id: keyId,
  team_id: "team",
  app_id: keyType === "agent" ? null : "app",
  key_type: keyType,
  name: keyId,
  secret: `svc_${keyType}_${keyId}`,
  permissions: [],
  created_by: createdBy,
  expires_at: null,
});

/** The team with these members (the first one created it), then `more` facts. */
const teamOf = (members: Record<string, Role>, ...more: DomainEvent[]) =>
  given(teamDecider)(teamCreated, ...Object.entries(members).map(([userId, role]) => memberAdded(userId, role)), ...more);

describe("CreateTeam", () => {
  const create = { type: "CreateTeam", teamId: "team", name: "Team", slug: "team", ownerId: "owner", forNewUser: false } as const;

  it("creates the team with its creator as owner", () => {
    given(teamDecider)().when(create).then(teamCreated, memberAdded("owner", "owner"));
  });

  it("refuses a team that already exists, even deleted", () => {
    given(teamDecider)(teamCreated).when(create).thenFails("conflict");
    given(teamDecider)(teamCreated, { type: "TeamDeleted", v: 1, team_id: "team" }).when(create).thenFails("conflict");
  });
});

describe("RenameTeam", () => {
  const team = teamOf({ owner: "owner", admin: "admin", member: "member" });

  it("lets admins and owners rename, recording the previous name", () => {
    team.when({ type: "RenameTeam", actorId: "admin", name: "New" }).then({ type: "TeamRenamed", v: 1, team_id: "team", name: "New", previous_name: "Team" });
    team.when({ type: "RenameTeam", actorId: "owner", name: "New" }).then({ type: "TeamRenamed", v: 1, team_id: "team", name: "New", previous_name: "Team" });
  });

  it("refuses members, and hides the team from outsiders", () => {
    team.when({ type: "RenameTeam", actorId: "member", name: "New" }).thenFails("forbidden");
    team.when({ type: "RenameTeam", actorId: "nobody", name: "New" }).thenFails("not_found");
  });

  it("records nothing when the name does not change", () => {
    team.when({ type: "RenameTeam", actorId: "owner", name: "Team" }).then();
  });

  it("knows a deleted team no more", () => {
    teamOf({ owner: "owner" }, { type: "TeamDeleted", v: 1, team_id: "team" }).when({ type: "RenameTeam", actorId: "owner", name: "New" }).thenFails("not_found");
    given(teamDecider)().when({ type: "RenameTeam", actorId: "owner", name: "New" }).thenFails("not_found");
  });
});

describe("ChangeRole", () => {
  const members = { owner: "owner", admin: "admin", other: "admin", member: "member" } as const;
  const team = teamOf(members);

  it.each([
    ["owner promotes a member to owner", "owner", "member", "owner", "ok"],
    ["admin promotes a member to owner", "admin", "member", "owner", "forbidden"],
    ["admin promotes a member to admin", "admin", "member", "admin", "ok"],
    ["admin changes another admin", "admin", "other", "member", "forbidden"],
    ["member changes anyone", "member", "admin", "member", "forbidden"],
    ["owner demotes an admin", "owner", "admin", "member", "ok"],
    ["own role", "owner", "owner", "admin", "invalid"],
    ["unknown target", "owner", "nobody", "admin", "not_found"],
  ] as const)("%s", (_name, actor, target, role, expected) => {
    const changing = team.when({ type: "ChangeRole", actorId: actor, userId: target, role });
    if (expected === "ok") changing.then(roleChanged(target, role, members[target as keyof typeof members]));
    else changing.thenFails(expected);
  });

  it("emits the previous role with the change", () => {
    team.when({ type: "ChangeRole", actorId: "owner", userId: "admin", role: "member" }).then(roleChanged("admin", "member", "admin"));
  });

  it("records nothing when the role is already the one asked for", () => {
    team.when({ type: "ChangeRole", actorId: "admin", userId: "member", role: "member" }).then();
  });

  it("hides the team from outsiders", () => {
    team.when({ type: "ChangeRole", actorId: "nobody", userId: "member", role: "admin" }).thenFails("not_found");
  });

  it("never demotes the last owner", () => {
    teamOf({ a: "owner", b: "owner" }).when({ type: "ChangeRole", actorId: "a", userId: "b", role: "admin" }).then(roleChanged("b", "admin", "owner"));
    // Same decision after b is already demoted: a is the last owner and cannot change itself anyway.
    teamOf({ a: "owner", b: "owner" }, roleChanged("b", "admin", "owner")).when({ type: "ChangeRole", actorId: "b", userId: "a", role: "admin" }).thenFails("forbidden");
  });
});

describe("RemoveMember", () => {
  const members = { owner: "owner", admin: "admin", member: "member" } as const;
  const team = teamOf(members, keyCreated("k1", "member"), keyCreated("k2", "admin"), keyCreated("c1", "member", "client"));

  it.each([
    ["owner removes an admin", "owner", "admin", "ok"],
    ["admin removes a member", "admin", "member", "ok"],
    ["admin removes the owner", "admin", "owner", "forbidden"],
    ["member removes an admin", "member", "admin", "forbidden"],
    ["member leaves", "member", "member", "ok"],
    ["sole owner leaves", "owner", "owner", "invalid"],
  ] as const)("%s", (_name, actor, target, expected) => {
    const removing = team.when({ type: "RemoveMember", actorId: actor, userId: target, revokeAgentKeys: false });
    if (expected === "ok") removing.then(memberRemoved(target, members[target]));
    else removing.thenFails(expected);
  });

  it("revokes only the removed member's agent keys when asked", () => {
    team.when({ type: "RemoveMember", actorId: "owner", userId: "member", revokeAgentKeys: true }).then(memberRemoved("member", "member", ["k1"]));
    team.when({ type: "RemoveMember", actorId: "owner", userId: "member", revokeAgentKeys: false }).then(memberRemoved("member", "member"));
  });

  it("forgets keys already deleted", () => {
    teamOf(members, keyCreated("k1", "member"), { type: "ApiKeyDeleted", v: 1, key_id: "k1", team_id: "team" })
      .when({ type: "RemoveMember", actorId: "owner", userId: "member", revokeAgentKeys: true })
      .then(memberRemoved("member", "member"));
  });

  it("answers not found for someone not in the team, and for an actor not in it", () => {
    team.when({ type: "RemoveMember", actorId: "owner", userId: "nobody", revokeAgentKeys: false }).thenFails("not_found");
    team.when({ type: "RemoveMember", actorId: "nobody", userId: "member", revokeAgentKeys: false }).thenFails("not_found");
    teamOf(members, memberRemoved("member", "member")).when({ type: "RemoveMember", actorId: "owner", userId: "member", revokeAgentKeys: false }).thenFails("not_found");
  });

  it("lets an owner go once another owner stays", () => {
    teamOf({ a: "owner", b: "owner" }).when({ type: "RemoveMember", actorId: "a", userId: "a", revokeAgentKeys: false }).then(memberRemoved("a", "owner"));
  });
});

describe("DeleteTeam", () => {
  const team = teamOf({ owner: "owner", admin: "admin" });

  it("needs the owner role and another team to fall back to", () => {
    team.when({ type: "DeleteTeam", actorId: "admin", actorTeamCount: 2 }).thenFails("forbidden");
    team.when({ type: "DeleteTeam", actorId: "owner", actorTeamCount: 1 }).thenFails("invalid");
    team.when({ type: "DeleteTeam", actorId: "owner", actorTeamCount: 2 }).then({ type: "TeamDeleted", v: 1, team_id: "team" });
  });

  it("deletes a team once", () => {
    teamOf({ owner: "owner" }, { type: "TeamDeleted", v: 1, team_id: "team" }).when({ type: "DeleteTeam", actorId: "owner", actorTeamCount: 2 }).thenFails("not_found");
  });
});
