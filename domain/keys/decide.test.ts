import { describe, expect, it } from "vitest";
import { resolvePermissions } from "./decide.ts";
import { AGENT_PERMISSIONS } from "../shared/permissions.ts";

describe("resolvePermissions", () => {
  it("gives each key type its defaults", () => {
    expect(resolvePermissions("client", undefined)).toEqual(["events:write", "users:write"]);
    expect(resolvePermissions("import", undefined)).toEqual(["events:write", "users:write"]);
    expect(resolvePermissions("agent", undefined)).toEqual([...AGENT_PERMISSIONS]);
  });

  it("rejects permissions outside the key type's catalogue", () => {
    expect(() => resolvePermissions("client", ["events:read"])).toThrow(/events:read is not a permission of client keys/);
    expect(() => resolvePermissions("agent", ["events:write"])).toThrow(/events:write/);
    expect(() => resolvePermissions("agent", [])).toThrow(/at least one/);
  });

  it("deduplicates and orders by the catalogue", () => {
    expect(resolvePermissions("agent", ["projects:read", "events:read", "projects:read"])).toEqual(["events:read", "projects:read"]);
    expect(resolvePermissions("agent", ["users:read"])).toEqual(["users:read"]);
  });
});
