import type { DomainEvent } from "../../../../domain/events.ts";
import { activeProject } from "../../../../projections/directory/catalog-queries.ts";
import { teamMembers } from "../../../../projections/directory/queries.ts";
import type { NoticeDraft, NotificationSource } from "../source.ts";

const LISTED = 3;

type Alert = { issueId: string; title: string; label: string };

/** A production issue the message opened, regressed or reopened from snooze; imports (history) and dev builds notify nobody. */
function alertOf(event: DomainEvent): Alert | null {
  switch (event.type) {
    case "IssueOpened":
      return event.is_dev || event.imported ? null : { issueId: event.issue_id, title: event.title, label: "New" };
    case "IssueRegressed":
      return event.is_dev ? null : { issueId: event.issue_id, title: event.title, label: "Regressed" };
    case "IssueReopened":
      return event.is_dev ? null : { issueId: event.issue_id, title: event.title, label: "Reopened" };
    default:
      return null;
  }
}

/**
 * `issue.new`: the detector decides one message per project per detection window (an ingest
 * batch); when it opened, regressed or reopened production issues, every member of the team gets
 * one notice listing up to three of them, in the inbox and by push (docs/notifications.md).
 */
export const issueNewSource: NotificationSource = {
  name: "issue_new",
  filter: "issues.>",
  // Occurrences, by far most of a detection message, are never validated here.
  wanted: (type) => type === "IssueOpened" || type === "IssueRegressed" || type === "IssueReopened",
  notices: async (envelope, { pool, publicBaseUrl }) => {
    const alerts = envelope.events.map(alertOf).filter((alert): alert is Alert => alert !== null);
    const first = envelope.events.find((event) => event.type === "IssueOpened" || event.type === "IssueRegressed" || event.type === "IssueReopened");
    if (alerts.length === 0 || !first || !("team_id" in first)) return [];
    const project = await activeProject(pool, first.project_id);
    if (!project) return [];
    const unique = [...new Map(alerts.map((alert) => [alert.issueId, alert])).values()];
    const listed = unique.slice(0, LISTED).map((alert) => `${alert.label}: ${alert.title}`);
    const more = unique.length - listed.length;
    const draft = (userId: string): NoticeDraft => ({
      userId,
      type: "issue.new",
      title: unique.length === 1 ? `New issue in ${project.name}` : `${unique.length} new issues in ${project.name}`,
      body: [...listed, ...(more > 0 ? [`and ${more} more`] : [])].join("\n"),
      link: unique.length === 1 ? `${publicBaseUrl}/dashboard/issues/${unique[0]!.issueId}` : `${publicBaseUrl}/dashboard/issues?project_id=${project.id}`,
      teamId: first.team_id,
      data: { project_id: project.id, issue_ids: unique.map((alert) => alert.issueId) },
      channels: ["push"],
    });
    return (await teamMembers(pool, first.team_id)).map((member) => draft(member.user_id));
  },
};
