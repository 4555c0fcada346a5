import { activeProject } from "../../../../projections/directory/catalog-queries.ts";
import { teamMembers } from "../../../../projections/directory/queries.ts";
import type { NoticeDraft, NotificationSource } from "../source.ts";

/** How many of the digest's issues the notice names; the digest itself lists up to ten. */
const LISTED = 5;

const PERIOD_NAMES = { hourly: "the last hour", "6_hourly": "the last 6 hours", daily: "the last day", weekly: "the last week" } as const;

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/**
 * `issue.digest`: the issue_digest job prepared a project's digest for a period of its
 * `issue_alert_frequency`; every member of the team gets it in the inbox and by push, naming the
 * busiest issues (docs/notifications.md).
 */
export const issueDigestSource: NotificationSource = {
  name: "issue_digest",
  filter: "issues.>",
  wanted: (type) => type === "IssueDigestPrepared",
  notices: async (envelope, { pool, publicBaseUrl }) => {
    const digest = envelope.events.find((event) => event.type === "IssueDigestPrepared");
    if (!digest || digest.type !== "IssueDigestPrepared") return [];
    const project = await activeProject(pool, digest.project_id);
    if (!project) return [];
    const lines = digest.issues.slice(0, LISTED).map((issue) => `${issue.is_new ? "New: " : ""}${issue.title} (${plural(issue.occurrences, "occurrence")})`);
    const more = digest.issue_count - lines.length;
    const draft = (userId: string): NoticeDraft => ({
      userId,
      type: "issue.digest",
      title: `${project.name}: ${plural(digest.issue_count, "issue")} in ${PERIOD_NAMES[digest.frequency]}`,
      body: [...lines, ...(more > 0 ? [`and ${more} more`] : [])].join("\n"),
      link: `${publicBaseUrl}/dashboard/issues?project_id=${project.id}`,
      teamId: digest.team_id,
      data: { project_id: project.id, period_start: digest.period_start, period_end: digest.period_end, issue_ids: digest.issues.map((issue) => issue.issue_id) },
      channels: ["push"],
    });
    return (await teamMembers(pool, digest.team_id)).map((member) => draft(member.user_id));
  },
};
