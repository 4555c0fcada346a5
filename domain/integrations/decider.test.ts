import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { integrationsDecider, type IntegrationCommand } from "./decider.ts";
import { maskedConfig, mergeConfig, PROVIDERS } from "./providers.ts";

const AT = "2026-11-26T03:00:00.000Z";
const on = { integration_id: "i1", team_id: "t", project_id: "p", provider: "subprov" as const };
const config = { api_key: "sk_live_abcdef", project_id: "proj1" };

const created: DomainEvent = { type: "IntegrationCreated", v: 1, ...on, config, webhook_secret: "whsec", restored: false, created_at: AT };
const deleted: DomainEvent = { type: "IntegrationDeleted", v: 1, ...on, deleted_at: AT };
type Create = Extract<IntegrationCommand, { type: "CreateIntegration" }>;
const create = (overrides: Partial<Create> = {}): Create => ({
  type: "CreateIntegration",
  teamId: "t",
  projectId: "p",
  provider: "subprov",
  config,
  newId: "i2",
  secret: "whsec2",
  at: AT,
  ...overrides,
});

const integrations = given(integrationsDecider);

describe("integrations decider", () => {
  it("creates one active integration per provider and refuses a second", () => {
    integrations().when(create({ newId: "i1", secret: "whsec" })).then(created);
    integrations(created).when(create()).thenFails("conflict");
  });

  it("restores a deleted integration under its id with the new config and a new secret", () => {
    const fresh = { api_key: "sk_new_123456", project_id: "proj2", environment: "sandbox" };
    integrations(created, deleted)
      .when(create({ config: fresh }))
      .then({ type: "IntegrationCreated", v: 1, ...on, config: fresh, webhook_secret: "whsec2", restored: true, created_at: AT });
  });

  it("refuses unknown providers, unknown keys, missing required keys and bad environments", () => {
    integrations().when(create({ provider: "stripe" })).thenFails("invalid");
    expect(integrations().when(create({ config: { ...config, extra: "x" } })).thenFails("invalid").message).toContain("config.extra");
    expect(integrations().when(create({ config: { api_key: "sk_1" } })).thenFails("invalid").message).toContain("config.project_id");
    integrations().when(create({ config: { ...config, environment: "staging" } })).thenFails("invalid");
  });

  it("merges a PATCH over the stored config, validates the merge and records only what changed", () => {
    integrations(created)
      .when({ type: "UpdateIntegration", projectId: "p", provider: "subprov", config: { environment: "sandbox" }, at: AT })
      .then({ type: "IntegrationUpdated", v: 1, ...on, config: { ...config, environment: "sandbox" }, enabled: true, previous_enabled: true, changed_keys: ["environment"], updated_at: AT });
    integrations(created).when({ type: "UpdateIntegration", projectId: "p", provider: "subprov", config: { project_id: "" }, at: AT }).thenFails("invalid");
    integrations(created).when({ type: "UpdateIntegration", projectId: "p", provider: "subprov", config: { project_id: "proj1" }, at: AT }).then();
    integrations(created)
      .when({ type: "UpdateIntegration", projectId: "p", provider: "subprov", enabled: false, at: AT })
      .then({ type: "IntegrationUpdated", v: 1, ...on, config, enabled: false, previous_enabled: true, changed_keys: [], updated_at: AT });
  });

  it("treats a deleted integration as missing, and takes transfers only while enabled", () => {
    integrations(created, deleted).when({ type: "DeleteIntegration", projectId: "p", provider: "subprov", at: AT }).thenFails("not_found");
    integrations(created, deleted).when({ type: "UpdateIntegration", projectId: "p", provider: "subprov", enabled: true, at: AT }).thenFails("not_found");
    const disabled: DomainEvent = { type: "IntegrationUpdated", v: 1, ...on, config, enabled: false, previous_enabled: true, changed_keys: [], updated_at: AT };
    integrations(created, disabled).when({ type: "RecordTransfer", projectId: "p", provider: "subprov", eventId: "e", userIds: ["u"], at: AT }).thenFails("not_found");
    integrations(created)
      .when({ type: "RecordTransfer", projectId: "p", provider: "subprov", eventId: "e", userIds: ["u"], at: AT })
      .then({ type: "IntegrationTransferReceived", v: 1, ...on, event_id: "e", user_ids: ["u"], received_at: AT });
  });
});

describe("config display", () => {
  it("masks sensitive values to their first 4 characters, and keeps a stored value a client echoes masked", () => {
    expect(maskedConfig(PROVIDERS.subprov, config)).toEqual({ api_key: "sk_l****", project_id: "proj1" });
    expect(mergeConfig(PROVIDERS.subprov, config, { api_key: "sk_l****" })).toEqual(config);
    expect(mergeConfig(PROVIDERS.subprov, config, { api_key: "sk_other" })).toEqual({ ...config, api_key: "sk_other" });
  });
});
