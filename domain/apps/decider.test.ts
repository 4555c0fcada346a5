import { describe, expect, it } from "vitest";
import { aProjectCreated, aTeamCreated } from "../../test/support/control-facts.ts";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { keySecret } from "../keys/decider.ts";
import { appsDecider, type AppCommand } from "./decider.ts";
import type { Platform } from "./events.ts";

const teamCreated = aTeamCreated();
const projectCreated = aProjectCreated();
const projectDeleted: DomainEvent = { type: "ProjectDeleted", v: 1, project_id: "p", team_id: "t", slug: "web" };
const SECRET = keySecret("client", "random");
const appCreated = (platform: Platform = "apple", bundleId: string | null = "com.example.shop"): DomainEvent => ({
  type: "AppCreated",
  v: 1,
  app_id: "a",
  team_id: "t",
  project_id: "p",
  name: "Shop",
  platform,
  bundle_id: bundleId,
  client_key_id: "ck",
});
const clientKeyCreated = (createdBy: string | null = "u"): DomainEvent => ({
  type: "ApiKeyCreated",
  v: 1,
  key_id: "ck",
  team_id: "t",
  app_id: "a",
  key_type: "client",
  name: "Client key",
  secret: SECRET,
  permissions: ["events:write", "users:write"],
  created_by: createdBy,
  expires_at: null,
});
const create = (platform: Platform, bundleId: string | null): AppCommand => ({
  type: "CreateApp",
  appId: "a",
  projectId: "p",
  name: "Shop",
  platform,
  bundleId,
  clientKey: { keyId: "ck", secret: SECRET },
  createdBy: "u",
});
const rename = (name: string, unchanged: Extract<AppCommand, { type: "UpdateApp" }>["unchanged"] = {}): AppCommand => ({ type: "UpdateApp", appId: "a", name, unchanged });
const withApp = [teamCreated, projectCreated, appCreated(), clientKeyCreated()];
const apps = given(appsDecider);

describe("apps decider", () => {
  it("creates an app together with its client key, which holds the client defaults", () => {
    apps(teamCreated, projectCreated).when(create("apple", "com.example.shop")).then(appCreated(), clientKeyCreated());
  });

  it("requires a bundle id for client platforms and drops one sent for a backend app", () => {
    for (const platform of ["apple", "android", "web"] as const) {
      expect(apps(teamCreated, projectCreated).when(create(platform, null)).thenFails("invalid").message).toBe(`bundle_id: required for ${platform} apps`);
    }
    apps(teamCreated, projectCreated).when(create("backend", "ignored")).then(appCreated("backend", null), clientKeyCreated());
  });

  it("creates no app in a missing or deleted project", () => {
    expect(apps(teamCreated).when(create("web", "example.com")).thenFails("not_found").message).toBe("project not found");
    apps(teamCreated, projectCreated, projectDeleted).when(create("web", "example.com")).thenFails("not_found");
  });

  it("renames, accepting the immutable fields sent back unchanged", () => {
    apps(...withApp)
      .when(rename("Shop 2", { platform: "apple", bundle_id: "com.example.shop", project_id: "p", team_id: "t", client_secret: SECRET }))
      .then({ type: "AppRenamed", v: 1, app_id: "a", team_id: "t", name: "Shop 2", previous_name: "Shop" });
  });

  it("refuses a change of any immutable field, naming it", () => {
    const refusal = (unchanged: Parameters<typeof rename>[1]) => apps(...withApp).when(rename("Shop 2", unchanged)).thenFails("invalid").message;
    expect(refusal({ bundle_id: "com.other" })).toBe("bundle_id: cannot be changed; only name can");
    expect(refusal({ platform: "web" })).toBe("platform: cannot be changed; only name can");
    expect(refusal({ project_id: "q" })).toBe("project_id: cannot be changed; only name can");
    expect(refusal({ team_id: "other" })).toBe("team_id: cannot be changed; only name can");
    expect(refusal({ client_secret: "svc_client_other" })).toBe("client_secret: cannot be changed; only name can");
    expect(refusal({ bundle_id: null })).toBe("bundle_id: cannot be changed; only name can");
  });

  it("records nothing when the name does not change", () => {
    apps(...withApp).when(rename("Shop")).then();
  });

  it("deletes an active app with one fact (its keys go with it), and knows a deleted one no more", () => {
    const appDeleted: DomainEvent = { type: "AppDeleted", v: 1, app_id: "a", team_id: "t", project_id: "p" };
    apps(...withApp).when({ type: "DeleteApp", appId: "a" }).then(appDeleted);
    expect(apps(...withApp, appDeleted).when({ type: "DeleteApp", appId: "a" }).thenFails("not_found").message).toBe("app not found");
    apps(...withApp, projectDeleted).when({ type: "DeleteApp", appId: "a" }).thenFails("not_found");
    apps(...withApp, appDeleted).when(rename("x")).thenFails("not_found");
    apps(teamCreated).when({ type: "DeleteApp", appId: "a" }).thenFails("not_found");
  });
});
