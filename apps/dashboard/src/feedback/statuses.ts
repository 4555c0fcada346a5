import type { Answer } from "../api/client.ts";

export type Feedback = Answer<"/v1/projects/{projectId}/feedback">["feedback"][number];
export type FeedbackStatus = Feedback["status"];

/** The API's four statuses, in the order feedback usually moves through them; any move is allowed. */
export const STATUSES: { value: FeedbackStatus; label: string }[] = [
  { value: "new", label: "New" },
  { value: "in_review", label: "In review" },
  { value: "addressed", label: "Addressed" },
  { value: "dismissed", label: "Dismissed" },
];

export const statusLabel = (status: FeedbackStatus) => STATUSES.find((candidate) => candidate.value === status)?.label ?? status;

export const statusOf = (value: string | null): FeedbackStatus | undefined => STATUSES.find((candidate) => candidate.value === value)?.value;
