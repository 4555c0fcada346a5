import { Link } from "react-router";
import type { Answer } from "../api/client.ts";

type Counts = Answer<"/v1/issues/count">;

const STATUSES: { key: Exclude<keyof Counts, "open">; label: string; open: boolean }[] = [
  { key: "new", label: "New", open: true },
  { key: "in_progress", label: "In progress", open: true },
  { key: "regressed", label: "Regressed", open: true },
  { key: "snoozed", label: "Snoozed", open: false },
  { key: "silenced", label: "Silenced", open: false },
  { key: "resolved", label: "Resolved", open: false },
];

/** The project's issues by status; `open` (new, in progress, regressed) is what needs someone. */
export function IssueStatus({ counts }: { counts: Counts }) {
  return (
    <ul className="statuses">
      {STATUSES.map((status) => (
        <li key={status.key} className={status.open ? "open" : undefined}>
          <Link to={`/issues?status=${status.key}`}>
            <span>{status.label}</span>
            <strong data-status={status.key}>{counts[status.key]}</strong>
          </Link>
        </li>
      ))}
    </ul>
  );
}
