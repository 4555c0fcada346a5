import { useState, type FormEvent } from "react";
import { useMoveIssue } from "./issue-queries.ts";
import { MOVE_LABELS, MOVES, statusLabel, type IssueDetail, type Move } from "./status.ts";

/**
 * The moves the SPEC allows from the issue's status. Resolving asks for the version the fix
 * shipped in first (the API requires it, and regression detection compares later occurrences'
 * app versions with it). A refused move shows the API's reason.
 */
export function StatusMoves({ issue, latestVersion }: { issue: IssueDetail; latestVersion: string | null }) {
  const move = useMoveIssue(issue.project_id, issue.id);
  const [resolving, setResolving] = useState(false);
  const [version, setVersion] = useState("");

  const go = (to: Move) => {
    if (to === "resolved") {
      setResolving(true);
      return;
    }
    move.mutate({ to });
  };
  const resolve = (event: FormEvent) => {
    event.preventDefault();
    move.mutate({ to: "resolved", version }, { onSuccess: () => setResolving(false) });
  };

  return (
    <section className="card moves" aria-labelledby="moves-title">
      <h2 id="moves-title">
        Status: <span className={`status-badge status-${issue.status}`}>{statusLabel(issue.status)}</span>
        {issue.status === "resolved" && issue.resolved_at_version && <span className="muted"> in version {issue.resolved_at_version}</span>}
      </h2>
      <div className="actions">
        {MOVES[issue.status].map((to) => (
          <button
            key={to}
            type="button"
            className={to === "resolved" ? undefined : "secondary"}
            disabled={move.isPending}
            aria-expanded={to === "resolved" ? resolving : undefined}
            onClick={() => go(to)}
          >
            {MOVE_LABELS[to]}
          </button>
        ))}
      </div>
      {resolving && (
        <form className="resolve-form" onSubmit={resolve}>
          <label htmlFor="resolved-version">Resolved in version</label>
          <input
            id="resolved-version"
            value={version}
            onChange={(event) => setVersion(event.target.value)}
            required
            autoFocus
            placeholder={latestVersion ?? "1.4.1"}
            aria-describedby="resolved-version-hint"
          />
          <p id="resolved-version-hint" className="muted">
            The app version the fix ships in: an occurrence from a newer version marks the issue regressed.
            {latestVersion && ` Latest occurrence: ${latestVersion}.`}
          </p>
          <div className="actions">
            <button type="submit" disabled={move.isPending}>
              {move.isPending ? "Resolving…" : "Resolve"}
            </button>
            <button type="button" className="secondary" onClick={() => setResolving(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {move.isError && (
        <p role="alert" className="form-error">
          The move was refused: {move.error.message}. The status shown here is the current one.
        </p>
      )}
    </section>
  );
}
