import { describe, expect, it } from "vitest";
import { aProjectCreated, aTeamCreated } from "../../test/support/control-facts.ts";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { AGENT_PERMISSIONS, type KeyType } from "../shared/permissions.ts";
import { keysDecider, keySecret, resolvePermissions, type KeyCommand } from "./decider.ts";

const teamCreated = aTeamCreated();
const projectCreated = aProjectCreated();
const appCreated: DomainEvent = {
  type: "AppCreated",
  v: 1,
  app_id: "a",
  team_id: "t",
  project_id: "p",
  name: "App",
  platform: "web",
  bundle_id: "example.com",
  client_key_id: "ck",
};
const keyCreated = (id: string, keyType: KeyType, appId: string | null, permissions: string[], name = "key"): DomainEvent => ({
  type: "ApiKeyCreated",
  v: 1,
  key_id: id,
  team_id: "t",
  app_id: appId,
  key_type: keyType,
  name,
  secret: keySecret(keyType, `${id}-random`),
  permissions,
  created_by: "u",
  expires_at: null,
});
const create = (keyType: KeyType, appId: string | null, permissions?: string[]): Extract<KeyCommand, { type: "CreateKey" }> => ({
  type: "CreateKey",
  keyId: "k",
  secret: keySecret(keyType, "k-random"),
  keyType,
  appId,
  name: "key",
  ...(permissions === undefined ? {} : { permissions }),
  createdBy: "u",
  expiresAt: null,
});
const history = [teamCreated, projectCreated, appCreated, keyCreated("ck", "client", "a", ["events:write", "users:write"], "Client key")];
const keys = given(keysDecider);

describe("keys decider", () => {
  it("creates each key type with its defaults, its prefix, its scope and expiry", () => {
    keys(...history).when(create("client", "a")).then(keyCreated("k", "client", "a", ["events:write", "users:write"]));
    keys(...history).when(create("import", "a")).then(keyCreated("k", "import", "a", ["events:write", "users:write"]));
    keys(...history).when(create("agent", null)).then(keyCreated("k", "agent", null, [...AGENT_PERMISSIONS]));
    keys(...history)
      .when({ ...create("import", "a"), expiresAt: "2026-12-01T00:00:00.000Z", createdBy: null })
      .then({ ...keyCreated("k", "import", "a", ["events:write", "users:write"]), expires_at: "2026-12-01T00:00:00.000Z", created_by: null } as DomainEvent);
    expect(keySecret("agent", "abc")).toBe("svc_agent_abc");
  });

  it("grants only the permissions the key type allows, deduplicated in catalogue order", () => {
    keys(...history).when(create("agent", null, ["projects:read", "events:read", "projects:read"])).then(keyCreated("k", "agent", null, ["events:read", "projects:read"]));
    keys(...history).when(create("agent", null, ["users:read"])).then(keyCreated("k", "agent", null, ["users:read"]));
    expect(keys(...history).when(create("client", "a", ["events:read"])).thenFails("invalid").message).toMatch(/events:read is not a permission of client keys/);
    expect(keys(...history).when(create("import", "a", ["apps:write"])).thenFails("invalid").message).toMatch(/apps:write is not a permission of import keys/);
    expect(keys(...history).when(create("agent", null, ["events:write"])).thenFails("invalid").message).toMatch(/events:write/);
    expect(keys(...history).when(create("agent", null, [])).thenFails("invalid").message).toMatch(/at least one/);
  });

  it("binds client and import keys to an active app of the team, agent keys to the team alone", () => {
    expect(keys(...history).when(create("client", null)).thenFails("invalid").message).toBe("app_id: required for client keys");
    keys(...history).when(create("import", "elsewhere")).thenFails("not_found");
    keys(...history, { type: "AppDeleted", v: 1, app_id: "a", team_id: "t", project_id: "p" }).when(create("import", "a")).thenFails("not_found");
    keys(...history, { type: "ProjectDeleted", v: 1, project_id: "p", team_id: "t", slug: "web" }).when(create("client", "a")).thenFails("not_found");
    keys(...history).when(create("agent", "a")).thenFails("invalid");
  });

  it("records only the fields an update changes, with permissions checked against the key's type", () => {
    const agent = keyCreated("ag", "agent", null, ["events:read", "projects:read"], "ops");
    keys(...history, agent)
      .when({ type: "UpdateKey", keyId: "ag", name: "ops 2", permissions: ["projects:read", "events:read"] })
      .then({ type: "ApiKeyUpdated", v: 1, key_id: "ag", team_id: "t", changes: { name: { before: "ops", after: "ops 2" } }, name: "ops 2", permissions: ["events:read", "projects:read"] });
    keys(...history, agent)
      .when({ type: "UpdateKey", keyId: "ag", permissions: ["audit_logs:read"] })
      .then({
        type: "ApiKeyUpdated",
        v: 1,
        key_id: "ag",
        team_id: "t",
        changes: { permissions: { before: ["events:read", "projects:read"], after: ["audit_logs:read"] } },
        name: "ops",
        permissions: ["audit_logs:read"],
      });
    keys(...history, agent).when({ type: "UpdateKey", keyId: "ag", permissions: ["events:write"] }).thenFails("invalid");
    keys(...history).when({ type: "UpdateKey", keyId: "ck", permissions: ["users:write"] }).then({
      type: "ApiKeyUpdated",
      v: 1,
      key_id: "ck",
      team_id: "t",
      changes: { permissions: { before: ["events:write", "users:write"], after: ["users:write"] } },
      name: "Client key",
      permissions: ["users:write"],
    });
  });

  it("records nothing when an update changes no value", () => {
    keys(...history).when({ type: "UpdateKey", keyId: "ck", name: "Client key", permissions: ["users:write", "events:write"] }).then();
  });

  it("deletes an active key, and knows a deleted or revoked one no more", () => {
    keys(...history).when({ type: "DeleteKey", keyId: "ck" }).then({ type: "ApiKeyDeleted", v: 1, key_id: "ck", team_id: "t" });
    keys(...history, { type: "ApiKeyDeleted", v: 1, key_id: "ck", team_id: "t" }).when({ type: "DeleteKey", keyId: "ck" }).thenFails("not_found");
    keys(...history, { type: "AppDeleted", v: 1, app_id: "a", team_id: "t", project_id: "p" }).when({ type: "DeleteKey", keyId: "ck" }).thenFails("not_found");
    const agent = keyCreated("ag", "agent", null, ["events:read"]);
    keys(...history, agent, { type: "MemberRemoved", v: 1, team_id: "t", user_id: "u", role: "admin", revoked_agent_key_ids: ["ag"] })
      .when({ type: "UpdateKey", keyId: "ag", name: "x" })
      .thenFails("not_found");
    keys(teamCreated).when({ type: "DeleteKey", keyId: "nope" }).thenFails("not_found");
  });
});

describe("resolvePermissions", () => {
  it("gives each key type its defaults", () => {
    expect(resolvePermissions("client", undefined)).toEqual(["events:write", "users:write"]);
    expect(resolvePermissions("import", undefined)).toEqual(["events:write", "users:write"]);
    expect(resolvePermissions("agent", undefined)).toEqual([...AGENT_PERMISSIONS]);
  });
});
