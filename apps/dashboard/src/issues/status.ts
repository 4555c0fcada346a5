import type { Answer } from "../api/client.ts";

export type Issue = Answer<"/v1/projects/{projectId}/issues">["issues"][number];
export type BoardIssue = Answer<"/v1/issues">["issues"][number];
export type IssueDetail = Answer<"/v1/projects/{projectId}/issues/{issueId}">;
export type Status = Issue["status"];
/** What a PATCH may ask for: `regressed` is only ever set by detection. */
export type Move = Exclude<Status, "regressed">;

/** The board's columns, left to right: what needs someone first, then what was dealt with. */
export const STATUSES: readonly { key: Status; label: string }[] = [
  { key: "new", label: "New" },
  { key: "in_progress", label: "In progress" },
  { key: "regressed", label: "Regressed" },
  { key: "resolved", label: "Resolved" },
  { key: "silenced", label: "Silenced" },
  { key: "snoozed", label: "Snoozed" },
];

export const statusLabel = (status: Status): string => STATUSES.find((entry) => entry.key === status)?.label ?? status;
export const statusOf = (value: string | null): Status | undefined => STATUSES.find((entry) => entry.key === value)?.key;

/** The SPEC's table of manual moves ("States and transitions"); the API refuses any other. */
export const MOVES: Record<Status, readonly Move[]> = {
  new: ["in_progress", "resolved", "silenced", "snoozed"],
  in_progress: ["new", "resolved", "silenced", "snoozed"],
  resolved: ["new", "silenced", "snoozed"],
  regressed: ["in_progress", "resolved", "silenced", "snoozed"],
  silenced: ["new", "in_progress", "resolved", "snoozed"],
  snoozed: ["new", "in_progress", "resolved", "silenced"],
};

/** A move's button, named for what it does rather than for the target column. */
export const MOVE_LABELS: Record<Move, string> = {
  new: "Reopen as new",
  in_progress: "Start work",
  resolved: "Resolve…",
  silenced: "Silence",
  snoozed: "Snooze",
};
