import type { ProjectDetail } from "./queries.ts";

export type AlertFrequency = ProjectDetail["effective_issue_alert_frequency"];

export const ALERT_FREQUENCY_LABELS: Record<AlertFrequency, string> = {
  none: "never",
  hourly: "hourly",
  "6_hourly": "every 6 hours",
  daily: "daily",
  weekly: "weekly",
};

/** A slug the API accepts (`^[a-z0-9-]+$`), suggested from a name. */
export const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
