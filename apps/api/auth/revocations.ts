import { isDirectoryEvent, type DomainEvent } from "../../../domain/events.ts";

/** What a remembered credential is bound to: revoking any of them revokes it. */
export type KeyScope = { keyId: string; appId: string | null; projectId: string | null; teamId: string };

/** The keys some facts take away, by key and by every key of an app, project or team. */
export type Revocation = {
  keyIds: ReadonlySet<string>;
  appIds: ReadonlySet<string>;
  projectIds: ReadonlySet<string>;
  teamIds: ReadonlySet<string>;
};

/**
 * The credentials `events` revoke or change, or null when they touch none (most facts). A key's
 * permissions changing counts too: a remembered key would still hold the old ones. The switch
 * lists every directory fact type, so a new one cannot be added without deciding here whether it
 * revokes.
 */
export function revocationIn(events: readonly DomainEvent[]): Revocation | null {
  const keyIds = new Set<string>();
  const appIds = new Set<string>();
  const projectIds = new Set<string>();
  const teamIds = new Set<string>();
  for (const event of events) {
    // Facts outside the directory (jobs, attachments, inbox, feedback, issues) bind no credential.
    if (!isDirectoryEvent(event)) continue;
    switch (event.type) {
      case "ApiKeyDeleted":
      case "ApiKeyUpdated":
        keyIds.add(event.key_id);
        break;
      case "MemberRemoved":
        for (const keyId of event.revoked_agent_key_ids) keyIds.add(keyId);
        break;
      case "AppDeleted":
        appIds.add(event.app_id);
        break;
      case "ProjectDeleted":
        projectIds.add(event.project_id);
        break;
      case "TeamDeleted":
        teamIds.add(event.team_id);
        break;
      // A re-created slug hard-deletes projects whose keys their deletion already revoked.
      case "ProjectCreated":
      case "ProjectUpdated":
      case "AppCreated":
      case "AppRenamed":
      case "ApiKeyCreated":
      case "UserRegistered":
      case "UserRenamed":
      case "TeamCreated":
      case "TeamRenamed":
      case "MemberAdded":
      // Roles bind users, whose membership is read on every request, never keys.
      case "MemberRoleChanged":
      case "InvitationCreated":
      case "InvitationResent":
      case "InvitationRevoked":
      case "InvitationAccepted":
      case "MetricDefined":
      case "MetricUpdated":
      case "MetricDeleted":
      case "FunnelCreated":
      case "FunnelUpdated":
      case "FunnelDeleted":
        break;
      default: {
        const unhandled: never = event;
        throw new Error(`revocationIn does not know ${(unhandled as { type: string }).type}`);
      }
    }
  }
  if (keyIds.size + appIds.size + projectIds.size + teamIds.size === 0) return null;
  return { keyIds, appIds, projectIds, teamIds };
}

/** Whether `revocation` takes away the credential bound to `scope`. */
export function revokes(revocation: Revocation, scope: KeyScope): boolean {
  return (
    revocation.keyIds.has(scope.keyId) ||
    revocation.teamIds.has(scope.teamId) ||
    (scope.appId !== null && revocation.appIds.has(scope.appId)) ||
    (scope.projectId !== null && revocation.projectIds.has(scope.projectId))
  );
}
