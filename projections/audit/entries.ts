import type { DomainEvent } from "../../domain/events.ts";

type Changes = Record<string, { before?: unknown; after?: unknown }>;

export type AuditEntryDraft = {
  team_id: string;
  action: "create" | "update" | "delete";
  resource_type: string;
  resource_id: string;
  changes: Changes | null;
  metadata: Record<string, unknown> | null;
};

const change = (before: unknown, after: unknown) => ({ before, after });

/** One entry; `changes` and `metadata` are null unless given. */
function entry(
  team_id: string,
  action: AuditEntryDraft["action"],
  resource_type: string,
  resource_id: string,
  detail: { changes?: Changes; metadata?: Record<string, unknown> } = {},
): AuditEntryDraft {
  return { team_id, action, resource_type, resource_id, changes: detail.changes ?? null, metadata: detail.metadata ?? null };
}

/** The audit entries one event stands for (none for events outside a team). */
export function auditEntriesFor(event: DomainEvent, at: string): AuditEntryDraft[] {
  switch (event.type) {
    case "UserRegistered":
      return [];
    case "UserRenamed":
      return event.team_ids.map((teamId) =>
        entry(teamId, "update", "user", event.user_id, { changes: { name: change(event.previous_name, event.name) } }),
      );
    case "TeamCreated": {
      const team = entry(event.team_id, "create", "team", event.team_id, { metadata: { name: event.name, slug: event.slug } });
      return event.for_new_user ? [entry(event.team_id, "create", "user", event.created_by), team] : [team];
    }
    case "TeamRenamed":
      return [entry(event.team_id, "update", "team", event.team_id, { changes: { name: change(event.previous_name, event.name) } })];
    case "TeamDeleted":
      return [entry(event.team_id, "delete", "team", event.team_id)];
    case "MemberAdded":
      return [entry(event.team_id, "create", "team_member", event.user_id, { metadata: { role: event.role } })];
    case "MemberRoleChanged":
      return [entry(event.team_id, "update", "team_member", event.user_id, { changes: { role: change(event.previous_role, event.role) } })];
    case "MemberRemoved":
      return [
        entry(event.team_id, "delete", "team_member", event.user_id, {
          metadata: { role: event.role, revoked_agent_key_ids: event.revoked_agent_key_ids },
        }),
      ];
    case "ApiKeyCreated":
      return [
        entry(event.team_id, "create", "api_key", event.key_id, {
          metadata: { name: event.name, key_type: event.key_type, app_id: event.app_id, permissions: event.permissions },
        }),
      ];
    case "ApiKeyUpdated":
      return [entry(event.team_id, "update", "api_key", event.key_id, { changes: event.changes })];
    case "ApiKeyDeleted":
      return [entry(event.team_id, "delete", "api_key", event.key_id)];
    case "InvitationCreated":
      return [
        entry(event.team_id, "create", "invitation", event.invitation_id, {
          metadata: { email: event.email, role: event.role, expires_at: event.expires_at },
        }),
      ];
    case "InvitationResent":
      return [
        entry(event.team_id, "update", "invitation", event.invitation_id, {
          changes: { expires_at: { after: event.expires_at }, token: { after: "regenerated" } },
          metadata: { email: event.email, role: event.role },
        }),
      ];
    case "InvitationRevoked":
      return [entry(event.team_id, "delete", "invitation", event.invitation_id, { metadata: { email: event.email } })];
    case "InvitationAccepted":
      return [
        entry(event.team_id, "update", "invitation", event.invitation_id, {
          changes: { accepted_at: { before: null, after: at } },
          metadata: { user_id: event.user_id, role: event.role },
        }),
      ];
    case "ProjectCreated":
      return [
        entry(event.team_id, "create", "project", event.project_id, { metadata: { name: event.name, slug: event.slug, color: event.color } }),
      ];
    case "ProjectUpdated":
      return [entry(event.team_id, "update", "project", event.project_id, { changes: event.changes })];
    case "ProjectDeleted":
      return [entry(event.team_id, "delete", "project", event.project_id, { metadata: { slug: event.slug } })];
    case "AppCreated":
      return [
        entry(event.team_id, "create", "app", event.app_id, {
          metadata: { name: event.name, platform: event.platform, bundle_id: event.bundle_id, project_id: event.project_id },
        }),
      ];
    case "AppRenamed":
      return [entry(event.team_id, "update", "app", event.app_id, { changes: { name: change(event.previous_name, event.name) } })];
    case "AppDeleted":
      return [entry(event.team_id, "delete", "app", event.app_id, { metadata: { project_id: event.project_id } })];
    case "MetricDefined":
      return [
        entry(event.team_id, "create", "metric_definition", event.metric_id, {
          metadata: { project_id: event.project_id, slug: event.slug, name: event.name, restored: event.restored },
        }),
      ];
    case "MetricUpdated":
      return [entry(event.team_id, "update", "metric_definition", event.metric_id, { changes: event.changes })];
    case "MetricDeleted":
      return [entry(event.team_id, "delete", "metric_definition", event.metric_id, { metadata: { slug: event.slug } })];
    case "FunnelCreated":
      return [
        entry(event.team_id, "create", "funnel_definition", event.funnel_id, {
          metadata: { project_id: event.project_id, slug: event.slug, name: event.name, steps: event.steps.length },
        }),
      ];
    case "FunnelUpdated":
      return [entry(event.team_id, "update", "funnel_definition", event.funnel_id, { changes: event.changes })];
    case "FunnelDeleted":
      return [entry(event.team_id, "delete", "funnel_definition", event.funnel_id, { metadata: { slug: event.slug } })];
    // A team's job runs are audited when someone starts or cancels one; system runs belong to no team.
    case "JobTriggered":
      if (event.team_id === null) return [];
      return [
        entry(event.team_id, "create", "job_run", event.run_id, {
          metadata: { job_type: event.job_type, project_id: event.project_id, triggered_by: event.triggered_by, params: event.params, notify: event.notify },
        }),
      ];
    case "JobCancelled":
      if (event.team_id === null) return [];
      return [entry(event.team_id, "update", "job_run", event.run_id, { changes: { status: change(event.previous_status, "cancelled") } })];
    case "JobStarted":
    case "JobProgressed":
    case "JobLeaseRenewed":
    case "JobCompleted":
    case "JobFailed":
      return [];
    // A member or key removing a file is a team action; SDK reservations, uploads and the cleanup's purges are not.
    case "AttachmentDeleted":
      return [entry(event.team_id, "delete", "attachment", event.attachment_id, { metadata: { project_id: event.project_id } })];
    case "AttachmentReserved":
    case "AttachmentUploaded":
    case "AttachmentPurged":
      return [];
    // A user's own inbox and devices are not team resources.
    case "NotificationCreated":
    case "NotificationReadChanged":
    case "NotificationsMarkedRead":
    case "NotificationDeleted":
    case "NotificationPurged":
    case "NotificationDelivered":
    case "NotificationDeliveryFailed":
    case "DeviceRegistered":
    case "DeviceRemoved":
      return [];
    // Triage by members and agent keys is a team action; an SDK's submission is not.
    case "FeedbackSubmitted":
      return [];
    case "FeedbackStatusChanged":
      return [entry(event.team_id, "update", "feedback", event.feedback_id, { changes: { status: change(event.previous_status, event.status) } })];
    case "FeedbackCommentAdded":
      return [entry(event.team_id, "create", "feedback", event.feedback_id, { metadata: { comment_id: event.comment_id, project_id: event.project_id } })];
    case "FeedbackCommentEdited":
      return [entry(event.team_id, "update", "feedback", event.feedback_id, { metadata: { comment_id: event.comment_id } })];
    case "FeedbackCommentDeleted":
      return [entry(event.team_id, "delete", "feedback", event.feedback_id, { metadata: { comment_id: event.comment_id } })];
    case "FeedbackDeleted":
      return [entry(event.team_id, "delete", "feedback", event.feedback_id, { metadata: { project_id: event.project_id } })];
    // Detection is the system reacting to ingest, not a team action; a person's triage is.
    case "IssueOpened":
    case "IssueOccurrenceRecorded":
    case "IssueFingerprintAliased":
    case "IssueRegressed":
    case "IssueReopened":
      return [];
    case "IssueStatusChanged":
      return [
        entry(event.team_id, "update", "issue", event.issue_id, {
          changes: { status: change(event.from, event.to) },
          metadata: { project_id: event.project_id, resolved_at_version: event.resolved_at_version },
        }),
      ];
    case "IssuesMerged":
      return [
        entry(event.team_id, "update", "issue", event.target_issue_id, { metadata: { merged_issue_id: event.source_issue_id, project_id: event.project_id } }),
        entry(event.team_id, "delete", "issue", event.source_issue_id, { metadata: { merged_into: event.target_issue_id, project_id: event.project_id } }),
      ];
    case "IssueCommentAdded":
      return [entry(event.team_id, "create", "issue", event.issue_id, { metadata: { comment_id: event.comment_id, project_id: event.project_id } })];
    case "IssueCommentEdited":
      return [entry(event.team_id, "update", "issue", event.issue_id, { metadata: { comment_id: event.comment_id } })];
    case "IssueCommentDeleted":
      return [entry(event.team_id, "delete", "issue", event.issue_id, { metadata: { comment_id: event.comment_id } })];
    // A scheduled digest is the system reporting, not a team action.
    case "IssueDigestPrepared":
      return [];
    // Store ratings are the system observing the App Store, not a team action.
    case "AppRatingsSnapshotted":
      return [];
    // An ad network pull is the system copying the network's data; its job run is the audited trigger.
    case "AdEntitiesSynced":
    case "AdMetricsSynced":
      return [];
    // Config changes name their keys only: values may be secrets, and the webhook secret never shows.
    case "IntegrationCreated":
      return [
        entry(event.team_id, "create", "integration", event.integration_id, {
          metadata: { project_id: event.project_id, provider: event.provider, config_keys: Object.keys(event.config).sort(), restored: event.restored },
        }),
      ];
    case "IntegrationUpdated":
      return [
        entry(event.team_id, "update", "integration", event.integration_id, {
          changes: {
            ...Object.fromEntries(event.changed_keys.map((key) => [`config.${key}`, { after: "changed" }])),
            ...(event.enabled === event.previous_enabled ? {} : { enabled: change(event.previous_enabled, event.enabled) }),
          },
          metadata: { project_id: event.project_id, provider: event.provider },
        }),
      ];
    case "IntegrationDeleted":
      return [entry(event.team_id, "delete", "integration", event.integration_id, { metadata: { project_id: event.project_id, provider: event.provider } })];
    // The provider reporting a transfer is not a team action.
    case "IntegrationTransferReceived":
      return [];
    default: {
      const unhandled: never = event;
      throw new Error(`no audit mapping for ${(unhandled as { type: string }).type}`);
    }
  }
}
