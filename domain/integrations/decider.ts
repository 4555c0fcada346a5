import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, notFound } from "../shared/errors.ts";
import { checkConfig, mergeConfig, providerOf, type IntegrationConfig, type ProviderId } from "./providers.ts";

/** One integration of the project as decisions read it; deleted ones stay, to be restored. */
export type IntegrationRecord = { id: string; teamId: string; config: IntegrationConfig; enabled: boolean; deleted: boolean };

/** A project's integrations by provider (the aggregate of `<ns>.d.integrations.<project_id>`). */
export type IntegrationsState = { byProvider: Partial<Record<ProviderId, IntegrationRecord>> };

export type IntegrationCommand =
  | { type: "CreateIntegration"; teamId: string; projectId: string; provider: string; config: IntegrationConfig; newId: string; secret: string; at: string }
  | { type: "UpdateIntegration"; projectId: string; provider: string; config?: IntegrationConfig; enabled?: boolean; at: string }
  | { type: "DeleteIntegration"; projectId: string; provider: string; at: string }
  | { type: "RecordTransfer"; projectId: string; provider: string; eventId: string; userIds: string[]; at: string };

/** The active integration of `provider`; a deleted one is as missing as one never created. */
function active(state: IntegrationsState, provider: ProviderId): IntegrationRecord {
  const record = state.byProvider[provider];
  if (!record || record.deleted) throw notFound("integration");
  return record;
}

const changedKeys = (before: IntegrationConfig, after: IntegrationConfig): string[] =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => before[key] !== after[key]).sort();

function decide(state: IntegrationsState, command: IntegrationCommand): DomainEvent[] {
  const provider = providerOf(command.provider);
  const id = provider.id as ProviderId;
  switch (command.type) {
    case "CreateIntegration": {
      checkConfig(provider, command.config);
      const existing = state.byProvider[id];
      if (existing && !existing.deleted) throw conflict(`an active ${id} integration exists for this project`);
      return [
        {
          type: "IntegrationCreated",
          v: 1,
          integration_id: existing?.id ?? command.newId,
          team_id: command.teamId,
          project_id: command.projectId,
          provider: id,
          config: { ...command.config },
          webhook_secret: command.secret,
          restored: existing !== undefined,
          created_at: command.at,
        },
      ];
    }
    case "UpdateIntegration": {
      const record = active(state, id);
      const config = command.config === undefined ? record.config : mergeConfig(provider, record.config, command.config);
      // The merge is checked whole: a PATCH may not leave a required key blank or add an unknown one.
      checkConfig(provider, config);
      const enabled = command.enabled ?? record.enabled;
      const keys = changedKeys(record.config, config);
      if (keys.length === 0 && enabled === record.enabled) return [];
      return [
        {
          type: "IntegrationUpdated",
          v: 1,
          integration_id: record.id,
          team_id: record.teamId,
          project_id: command.projectId,
          provider: id,
          config,
          enabled,
          previous_enabled: record.enabled,
          changed_keys: keys,
          updated_at: command.at,
        },
      ];
    }
    case "DeleteIntegration": {
      const record = active(state, id);
      return [{ type: "IntegrationDeleted", v: 1, integration_id: record.id, team_id: record.teamId, project_id: command.projectId, provider: id, deleted_at: command.at }];
    }
    case "RecordTransfer": {
      const record = active(state, id);
      if (!record.enabled) throw notFound("integration");
      return [
        {
          type: "IntegrationTransferReceived",
          v: 1,
          integration_id: record.id,
          team_id: record.teamId,
          project_id: command.projectId,
          provider: id,
          event_id: command.eventId,
          user_ids: [...command.userIds],
          received_at: command.at,
        },
      ];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unknown integration command ${(unhandled as { type: string }).type}`);
    }
  }
}

function evolve(state: IntegrationsState, fact: DomainEvent): IntegrationsState {
  switch (fact.type) {
    case "IntegrationCreated":
      return { byProvider: { ...state.byProvider, [fact.provider]: { id: fact.integration_id, teamId: fact.team_id, config: fact.config, enabled: true, deleted: false } } };
    case "IntegrationUpdated": {
      const record = state.byProvider[fact.provider];
      return record ? { byProvider: { ...state.byProvider, [fact.provider]: { ...record, config: fact.config, enabled: fact.enabled } } } : state;
    }
    case "IntegrationDeleted": {
      const record = state.byProvider[fact.provider];
      return record ? { byProvider: { ...state.byProvider, [fact.provider]: { ...record, deleted: true } } } : state;
    }
    default:
      return state;
  }
}

/** The rules of a project's integrations (`<ns>.d.integrations.<project_id>`): one active per provider, validated config. */
export const integrationsDecider: Decider<IntegrationsState, IntegrationCommand, DomainEvent> = {
  initialState: { byProvider: {} },
  decide,
  evolve,
};
