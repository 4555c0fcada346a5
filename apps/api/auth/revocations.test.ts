import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../../domain/events.ts";
import { revocationIn, revokes } from "./revocations.ts";

const scope = { keyId: "key", appId: "app", projectId: "project", teamId: "team" };

describe("revocationIn", () => {
  it.each<[string, DomainEvent]>([
    ["a deleted key", { type: "ApiKeyDeleted", v: 1, key_id: "key", team_id: "other" }],
    ["a key whose permissions changed", { type: "ApiKeyUpdated", v: 1, key_id: "key", team_id: "other", changes: {}, name: "n", permissions: [] }],
    ["a removed member's agent keys", { type: "MemberRemoved", v: 1, team_id: "other", user_id: "u", role: "admin", revoked_agent_key_ids: ["key"] }],
    ["a deleted app", { type: "AppDeleted", v: 1, app_id: "app", team_id: "other", project_id: "other" }],
    ["a deleted project", { type: "ProjectDeleted", v: 1, project_id: "project", team_id: "other", slug: "s" }],
    ["a deleted team", { type: "TeamDeleted", v: 1, team_id: "team" }],
  ])("takes away %s", (_, event) => {
    const revocation = revocationIn([event]);
    expect(revocation).not.toBeNull();
    expect(revokes(revocation!, scope)).toBe(true);
    expect(revokes(revocation!, { keyId: "k2", appId: "a2", projectId: "p2", teamId: "t2" })).toBe(false);
  });

  it("finds no revocation in facts that take no key away", () => {
    expect(revocationIn([{ type: "MemberRemoved", v: 1, team_id: "team", user_id: "u", role: "member", revoked_agent_key_ids: [] }])).toBeNull();
    expect(revocationIn([{ type: "AppRenamed", v: 1, app_id: "app", team_id: "team", name: "n", previous_name: "o" }])).toBeNull();
    expect(revocationIn([{ type: "MemberRoleChanged", v: 1, team_id: "team", user_id: "u", role: "member", previous_role: "admin" }])).toBeNull();
    expect(revocationIn([])).toBeNull();
  });

  it("collects every revocation of a multi-event fact", () => {
    const revocation = revocationIn([
      { type: "AppRenamed", v: 1, app_id: "app", team_id: "team", name: "n", previous_name: "o" },
      { type: "ApiKeyDeleted", v: 1, key_id: "k1", team_id: "team" },
      { type: "AppDeleted", v: 1, app_id: "a1", team_id: "team", project_id: "p" },
    ]);
    expect(revokes(revocation!, { keyId: "k1", appId: null, projectId: null, teamId: "t" })).toBe(true);
    expect(revokes(revocation!, { keyId: "k9", appId: "a1", projectId: null, teamId: "t" })).toBe(true);
  });
});
