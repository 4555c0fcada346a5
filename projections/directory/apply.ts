import { sql, type DatabaseTransactionConnection } from "slonik";
import { decodeDomainEnvelopeOf, isDirectoryEvent, isDirectoryEventType, type DirectoryEvent, type DomainEnvelope } from "../../domain/events.ts";
import type { Fact, Projection } from "../_runtime/projection.ts";
import * as catalog from "./apply-catalog.ts";
import * as definitions from "./apply-definitions.ts";
import { recordSubjectVersion } from "../_runtime/subject-versions.ts";

type Context = { tx: DatabaseTransactionConnection; at: string };

async function applyEvent({ tx, at }: Context, event: DirectoryEvent): Promise<void> {
  switch (event.type) {
    case "UserRegistered":
      await tx.query(sql.unsafe`
        insert into users (id, email, name, created_at, updated_at)
        values (${event.user_id}, ${event.email}, ${event.name}, ${at}, ${at}) on conflict (id) do nothing`);
      return;
    case "UserRenamed":
      await tx.query(sql.unsafe`update users set name = ${event.name}, updated_at = ${at} where id = ${event.user_id}`);
      return;
    case "TeamCreated":
      await tx.query(sql.unsafe`
        insert into teams (id, name, slug, created_at, updated_at)
        values (${event.team_id}, ${event.name}, ${event.slug}, ${at}, ${at}) on conflict (id) do nothing`);
      return;
    case "TeamRenamed":
      await tx.query(sql.unsafe`update teams set name = ${event.name}, updated_at = ${at} where id = ${event.team_id}`);
      return;
    case "TeamDeleted":
      await tx.query(sql.unsafe`update teams set deleted_at = ${at}, updated_at = ${at} where id = ${event.team_id}`);
      await tx.query(sql.unsafe`delete from team_members where team_id = ${event.team_id}`);
      await tx.query(sql.unsafe`delete from invitations where team_id = ${event.team_id}`);
      await tx.query(sql.unsafe`
        update api_keys set deleted_at = ${at}, updated_at = ${at} where team_id = ${event.team_id} and deleted_at is null`);
      await catalog.teamCatalogDeleted({ tx, at }, event.team_id);
      await definitions.definitionsDeleted({ tx, at }, { teamId: event.team_id });
      return;
    case "MemberAdded":
      await tx.query(sql.unsafe`
        insert into team_members (team_id, user_id, role, joined_at)
        values (${event.team_id}, ${event.user_id}, ${event.role}, ${at})
        on conflict (team_id, user_id) do update set role = excluded.role`);
      return;
    case "MemberRoleChanged":
      await tx.query(sql.unsafe`
        update team_members set role = ${event.role} where team_id = ${event.team_id} and user_id = ${event.user_id}`);
      return;
    case "MemberRemoved":
      await tx.query(sql.unsafe`delete from team_members where team_id = ${event.team_id} and user_id = ${event.user_id}`);
      if (event.revoked_agent_key_ids.length > 0) {
        await tx.query(sql.unsafe`
          update api_keys set deleted_at = ${at}, updated_at = ${at}
           where id = any(${sql.array(event.revoked_agent_key_ids, "uuid")}) and deleted_at is null`);
      }
      return;
    case "ApiKeyCreated":
      await tx.query(sql.unsafe`
        insert into api_keys (id, team_id, app_id, key_type, name, secret, permissions, created_by, created_at, updated_at, expires_at)
        values (${event.key_id}, ${event.team_id}, ${event.app_id}, ${event.key_type}, ${event.name}, ${event.secret},
                ${sql.array(event.permissions, "text")}, ${event.created_by}, ${at}, ${at}, ${event.expires_at})
        on conflict (id) do nothing`);
      return;
    case "ApiKeyUpdated":
      await tx.query(sql.unsafe`
        update api_keys set name = ${event.name}, permissions = ${sql.array(event.permissions, "text")}, updated_at = ${at}
         where id = ${event.key_id}`);
      return;
    case "ApiKeyDeleted":
      await tx.query(sql.unsafe`update api_keys set deleted_at = ${at}, updated_at = ${at} where id = ${event.key_id} and deleted_at is null`);
      return;
    case "InvitationCreated":
      await tx.query(sql.unsafe`
        insert into invitations (id, team_id, email, role, token_hash, invited_by, expires_at, created_at)
        values (${event.invitation_id}, ${event.team_id}, ${event.email}, ${event.role}, ${event.token_hash},
                ${event.invited_by}, ${event.expires_at}, ${at})
        on conflict (id) do nothing`);
      return;
    case "InvitationResent":
      await tx.query(sql.unsafe`
        update invitations set token_hash = ${event.token_hash}, role = ${event.role}, invited_by = ${event.invited_by},
               expires_at = ${event.expires_at}
         where id = ${event.invitation_id}`);
      return;
    case "InvitationRevoked":
      await tx.query(sql.unsafe`delete from invitations where id = ${event.invitation_id}`);
      return;
    case "InvitationAccepted":
      await tx.query(sql.unsafe`update invitations set accepted_at = ${at} where id = ${event.invitation_id}`);
      return;
    case "ProjectCreated":
      return catalog.projectCreated({ tx, at }, event);
    case "ProjectUpdated":
      return catalog.projectUpdated({ tx, at }, event);
    case "ProjectDeleted":
      await catalog.projectDeleted({ tx, at }, event);
      return definitions.definitionsDeleted({ tx, at }, { projectId: event.project_id });
    case "AppCreated":
      return catalog.appCreated({ tx, at }, event);
    case "AppRenamed":
      return catalog.appRenamed({ tx, at }, event);
    case "AppDeleted":
      return catalog.appDeleted({ tx, at }, event);
    case "MetricDefined":
      return definitions.metricDefined({ tx, at }, event);
    case "MetricUpdated":
      return definitions.metricUpdated({ tx, at }, event);
    case "MetricDeleted":
      return definitions.metricDeleted({ tx, at }, event);
    case "FunnelCreated":
      return definitions.funnelCreated({ tx, at }, event);
    case "FunnelUpdated":
      return definitions.funnelUpdated({ tx, at }, event);
    case "FunnelDeleted":
      return definitions.funnelDeleted({ tx, at }, event);
    default: {
      const unhandled: never = event;
      throw new Error(`directory cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

async function applyEnvelope(tx: DatabaseTransactionConnection, fact: Fact, envelope: DomainEnvelope): Promise<void> {
  // Other features' facts have read models of their own; their subjects' versions are still recorded here.
  for (const event of envelope.events) if (isDirectoryEvent(event)) await applyEvent({ tx, at: envelope.at }, event);
  // The aggregate's version moves in the same transaction as its rows: a command that reads the
  // version first and the rows second can never decide on rows older than the version it expects.
  await recordVersion(tx, fact);
}

async function recordVersion(tx: DatabaseTransactionConnection, fact: Fact): Promise<void> {
  await recordSubjectVersion(tx, "aggregate_versions", fact);
}

export const directoryProjection: Projection = {
  name: "directory",
  stream: "DOMAIN",
  migrationsDir: new URL("./migrations/", import.meta.url),
  apply: async (tx, facts) => {
    for (const fact of facts) await applyEnvelope(tx, fact, decodeDomainEnvelopeOf(fact.data, isDirectoryEventType));
  },
  // A parked fact still takes its place in the aggregate's history, so commands can go on.
  parked: recordVersion,
};
