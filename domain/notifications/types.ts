/**
 * Every notification type (docs/notifications.md gives each one's title, body, link and channels).
 * The SPEC names `issue.digest`; the others follow its dotted form.
 */
export const NOTIFICATION_TYPES = ["job.completed", "issue.new", "issue.digest", "feedback.new"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(NOTIFICATION_TYPES);

/**
 * The known types of a `type` filter (one value or a comma list). The SPEC says unknown values are
 * ignored: they are dropped, and a filter left with none filters nothing.
 */
export function knownTypes(value: string | undefined): NotificationType[] {
  if (value === undefined) return [];
  return [...new Set(value.split(",").map((part) => part.trim()))].filter((part): part is NotificationType => KNOWN.has(part));
}
