import { describe, expect, it } from "vitest";
import { DomainError } from "../shared/errors.ts";
import type { Role } from "../shared/roles.ts";
import { changeRole, deleteTeam, removeMember, type TeamState } from "./decide.ts";

const team = (members: Record<string, Role>, agentKeys: TeamState["agentKeys"] = []): TeamState => ({
  teamId: "team",
  name: "Team",
  members: new Map(Object.entries(members)),
  agentKeys,
});

const codeOf = (run: () => unknown): string | "ok" => {
  try {
    run();
    return "ok";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

describe("changeRole", () => {
  const state = team({ owner: "owner", admin: "admin", other: "admin", member: "member" });

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
    expect(codeOf(() => changeRole(state, actor, target, role))).toBe(expected);
  });

  it("emits the previous role with the change", () => {
    expect(changeRole(state, "owner", "admin", "member")).toEqual([
      { type: "MemberRoleChanged", v: 1, team_id: "team", user_id: "admin", role: "member", previous_role: "admin" },
    ]);
  });

  it("never demotes the last owner", () => {
    const twoOwners = team({ a: "owner", b: "owner" });
    expect(codeOf(() => changeRole(twoOwners, "a", "b", "admin"))).toBe("ok");
    // Same decision after b is already demoted: a is the last owner and cannot change itself anyway.
    expect(codeOf(() => changeRole(team({ a: "owner", b: "admin" }), "b", "a", "admin"))).toBe("forbidden");
  });
});

describe("removeMember", () => {
  const state = team({ owner: "owner", admin: "admin", member: "member" }, [
    { keyId: "k1", createdBy: "member" },
    { keyId: "k2", createdBy: "admin" },
  ]);

  it.each([
    ["owner removes an admin", "owner", "admin", "ok"],
    ["admin removes a member", "admin", "member", "ok"],
    ["admin removes the owner", "admin", "owner", "forbidden"],
    ["member removes an admin", "member", "admin", "forbidden"],
    ["member leaves", "member", "member", "ok"],
    ["sole owner leaves", "owner", "owner", "invalid"],
  ] as const)("%s", (_name, actor, target, expected) => {
    expect(codeOf(() => removeMember(state, actor, target, false))).toBe(expected);
  });

  it("revokes only the removed member's agent keys when asked", () => {
    const [removed] = removeMember(state, "owner", "member", true);
    expect(removed).toMatchObject({ type: "MemberRemoved", revoked_agent_key_ids: ["k1"] });
    expect(removeMember(state, "owner", "member", false)[0]).toMatchObject({ revoked_agent_key_ids: [] });
  });
});

describe("deleteTeam", () => {
  it("needs the owner role and another team to fall back to", () => {
    const state = team({ owner: "owner", admin: "admin" });
    expect(codeOf(() => deleteTeam(state, "admin", 2))).toBe("forbidden");
    expect(codeOf(() => deleteTeam(state, "owner", 1))).toBe("invalid");
    expect(deleteTeam(state, "owner", 2)).toEqual([{ type: "TeamDeleted", v: 1, team_id: "team" }]);
  });
});
