import { Link } from "react-router";
import { ago, number } from "./format.ts";
import type { BoardIssue } from "./status.ts";

/** An issue on the board; the link carries its project so the detail asks for it directly. */
export function IssueCard({ issue, showProject }: { issue: BoardIssue; showProject: boolean }) {
  return (
    <li className="issue-card">
      <Link to={`/issues/${issue.id}?project=${issue.project_id}`} className="issue-title">
        {issue.title}
      </Link>
      <p className="muted where">
        {showProject && issue.project_name ? `${issue.project_name} · ` : ""}
        {issue.app_name}
        {issue.is_dev && <span className="dev-flag">dev</span>}
      </p>
      <p className="muted figures">
        <span title="Occurrences">{number.format(issue.occurrence_count)}×</span>
        <span>
          {number.format(issue.unique_user_count)} {issue.unique_user_count === 1 ? "user" : "users"}
        </span>
        <span title={issue.last_seen_at ?? undefined}>{ago(issue.last_seen_at)}</span>
      </p>
    </li>
  );
}
