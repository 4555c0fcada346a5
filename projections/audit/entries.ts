import type { DomainEvent } from "../../domain/events.ts";

export type AuditEntryDraft = {
  team_id: string;
  action: "create" | "update" | "delete";
  resource_type: string;
  resource_id: string;
  changes: Record<string, { before?: unknown; after?: unknown }> | null;
  metadata: Record<string, unknown> | null;
};

const change = (before: unknown, after: unknown) => ({ before, after });

/** The audit entries one event stands for (none for events outside a team). */
export function auditEntriesFor(event: DomainEvent, at: string): AuditEntryDraft[] {
  switch (event.type) {
    case "UserRegistered":
      return [];
    case "UserRenamed":
      return event.team_ids.map((team_id) => ({
        team_id,
        action: "update",
        resource_type: "user",
        resource_id: event.user_id,
        changes: { name: change(event.previous_name, event.name) },
        metadata: null,
      }));
    case "TeamCreated": {
      const team: AuditEntryDraft = {
        team_id: event.team_id,
        action: "create",
        resource_type: "team",
        resource_id: event.team_id,
        changes: null,
        metadata: { name: event.name, slug: event.slug },
      };
      if (!event.for_new_user) return [team];
      return [
        { team_id: event.team_id, action: "create", resource_type: "user", resource_id: event.created_by, changes: null, metadata: null },
        team,
      ];
    }
    case "TeamRenamed":
      return [
        {
          team_id: event.team_id,
          action: "update",
          resource_type: "team",
          resource_id: event.team_id,
          changes: { name: change(event.previous_name, event.name) },
          metadata: null,
        },
      ];
    case "TeamDeleted":
      return [{ team_id: event.team_id, action: "delete", resource_type: "team", resource_id: event.team_id, changes: null, metadata: null }];
    case "MemberAdded":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "team_member",
          resource_id: event.user_id,
          changes: null,
          metadata: { role: event.role },
        },
      ];
    case "MemberRoleChanged":
      return [
        {
          team_id: event.team_id,
          action: "update",
          resource_type: "team_member",
          resource_id: event.user_id,
          changes: { role: change(event.previous_role, event.role) },
          metadata: null,
        },
      ];
    case "MemberRemoved":
      return [
        {
          team_id: event.team_id,
          action: "delete",
          resource_type: "team_member",
          resource_id: event.user_id,
          changes: null,
          metadata: { role: event.role, revoked_agent_key_ids: event.revoked_agent_key_ids },
        },
      ];
    case "ApiKeyCreated":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "api_key",
          resource_id: event.key_id,
          changes: null,
          metadata: { name: event.name, key_type: event.key_type, app_id: event.app_id, permissions: event.permissions },
        },
      ];
    case "ApiKeyUpdated":
      return [
        { team_id: event.team_id, action: "update", resource_type: "api_key", resource_id: event.key_id, changes: event.changes, metadata: null },
      ];
    case "ApiKeyDeleted":
      return [{ team_id: event.team_id, action: "delete", resource_type: "api_key", resource_id: event.key_id, changes: null, metadata: null }];
    case "InvitationCreated":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "invitation",
          resource_id: event.invitation_id,
          changes: null,
          metadata: { email: event.email, role: event.role, expires_at: event.expires_at },
        },
      ];
    case "InvitationResent":
      return [
        {
          team_id: event.team_id,
          action: "update",
          resource_type: "invitation",
          resource_id: event.invitation_id,
          changes: { expires_at: { after: event.expires_at }, token: { after: "regenerated" } },
          metadata: { email: event.email, role: event.role },
        },
      ];
    case "InvitationRevoked":
      return [
        { team_id: event.team_id, action: "delete", resource_type: "invitation", resource_id: event.invitation_id, changes: null, metadata: { email: event.email } },
      ];
    case "InvitationAccepted":
      return [
        {
          team_id: event.team_id,
          action: "update",
          resource_type: "invitation",
          resource_id: event.invitation_id,
          changes: { accepted_at: { before: null, after: at } },
          metadata: { user_id: event.user_id, role: event.role },
        },
      ];
    case "ProjectCreated":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "project",
          resource_id: event.project_id,
          changes: null,
          metadata: { name: event.name, slug: event.slug, color: event.color },
        },
      ];
    case "ProjectUpdated":
      return [
        { team_id: event.team_id, action: "update", resource_type: "project", resource_id: event.project_id, changes: event.changes, metadata: null },
      ];
    case "ProjectDeleted":
      return [
        { team_id: event.team_id, action: "delete", resource_type: "project", resource_id: event.project_id, changes: null, metadata: { slug: event.slug } },
      ];
    case "AppCreated":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "app",
          resource_id: event.app_id,
          changes: null,
          metadata: { name: event.name, platform: event.platform, bundle_id: event.bundle_id, project_id: event.project_id },
        },
      ];
    case "AppRenamed":
      return [
        {
          team_id: event.team_id,
          action: "update",
          resource_type: "app",
          resource_id: event.app_id,
          changes: { name: change(event.previous_name, event.name) },
          metadata: null,
        },
      ];
    case "AppDeleted":
      return [
        { team_id: event.team_id, action: "delete", resource_type: "app", resource_id: event.app_id, changes: null, metadata: { project_id: event.project_id } },
      ];
    case "MetricDefined":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "metric_definition",
          resource_id: event.metric_id,
          changes: null,
          metadata: { project_id: event.project_id, slug: event.slug, name: event.name, restored: event.restored },
        },
      ];
    case "MetricUpdated":
      return [
        { team_id: event.team_id, action: "update", resource_type: "metric_definition", resource_id: event.metric_id, changes: event.changes, metadata: null },
      ];
    case "MetricDeleted":
      return [
        { team_id: event.team_id, action: "delete", resource_type: "metric_definition", resource_id: event.metric_id, changes: null, metadata: { slug: event.slug } },
      ];
    case "FunnelCreated":
      return [
        {
          team_id: event.team_id,
          action: "create",
          resource_type: "funnel_definition",
          resource_id: event.funnel_id,
          changes: null,
          metadata: { project_id: event.project_id, slug: event.slug, name: event.name, steps: event.steps.length },
        },
      ];
    case "FunnelUpdated":
      return [
        { team_id: event.team_id, action: "update", resource_type: "funnel_definition", resource_id: event.funnel_id, changes: event.changes, metadata: null },
      ];
    case "FunnelDeleted":
      return [
        { team_id: event.team_id, action: "delete", resource_type: "funnel_definition", resource_id: event.funnel_id, changes: null, metadata: { slug: event.slug } },
      ];
    default: {
      const unhandled: never = event;
      throw new Error(`no audit mapping for ${(unhandled as { type: string }).type}`);
    }
  }
}
