export const ISSUE_STATUSES = ["new", "in_progress", "resolved", "silenced", "regressed", "snoozed"] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

/** What a PATCH may ask for: `regressed` is set by detection only. */
export const REQUESTABLE_STATUSES = ["new", "in_progress", "resolved", "silenced", "snoozed"] as const;
export type RequestableStatus = (typeof REQUESTABLE_STATUSES)[number];

/** The SPEC's table of manual moves ("Issue status"), from → allowed targets. */
export const MANUAL_MOVES: Record<IssueStatus, readonly RequestableStatus[]> = {
  new: ["in_progress", "resolved", "silenced", "snoozed"],
  in_progress: ["new", "resolved", "silenced", "snoozed"],
  resolved: ["new", "silenced", "snoozed"],
  regressed: ["in_progress", "resolved", "silenced", "snoozed"],
  silenced: ["new", "in_progress", "resolved", "snoozed"],
  snoozed: ["new", "in_progress", "resolved", "silenced"],
};

export const canMove = (from: IssueStatus, to: RequestableStatus): boolean => MANUAL_MOVES[from].includes(to);
