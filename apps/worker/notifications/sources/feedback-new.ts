import type { DomainEvent } from "../../../../domain/events.ts";
import { activeProject } from "../../../../projections/directory/catalog-queries.ts";
import { teamMembers } from "../../../../projections/directory/queries.ts";
import type { NoticeDraft, NotificationSource, SourceDeps } from "../source.ts";

const PREVIEW = 140;

/** The start of the message on one line, cut at a character (code point) boundary. */
function preview(message: string): string {
  const flat = message.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= PREVIEW ? flat : `${chars.slice(0, PREVIEW - 1).join("")}…`;
}

async function noticesOf(event: DomainEvent, { pool, publicBaseUrl }: SourceDeps): Promise<NoticeDraft[]> {
  if (event.type !== "FeedbackSubmitted" || event.is_dev) return [];
  // A project deleted since: nobody is notified about it.
  const project = await activeProject(pool, event.project_id);
  if (!project) return [];
  const from = event.submitter_name ?? event.submitter_email ?? event.user_id;
  return (await teamMembers(pool, event.team_id)).map((member) => ({
    userId: member.user_id,
    type: "feedback.new" as const,
    title: `New feedback in ${project.name}`,
    body: from ? `${from}: ${preview(event.message)}` : preview(event.message),
    link: `${publicBaseUrl}/dashboard/feedback/${event.feedback_id}`,
    teamId: event.team_id,
    data: { feedback_id: event.feedback_id, project_id: event.project_id, app_id: event.app_id },
    channels: ["push"],
  }));
}

/**
 * `feedback.new`: an SDK sent feedback from a production build; every member of the project's team
 * hears of it in the inbox and by push (docs/notifications.md). Feedback from development builds
 * is the developers' own testing and notifies nobody.
 */
export const feedbackNewSource: NotificationSource = {
  name: "feedback_new",
  filter: "feedback.>",
  wanted: (type) => type === "FeedbackSubmitted",
  notices: async (envelope, deps) => {
    const drafts: NoticeDraft[] = [];
    for (const event of envelope.events) drafts.push(...(await noticesOf(event, deps)));
    return drafts;
  },
};
