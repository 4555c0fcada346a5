import { useState } from "react";
import { ErrorState, Loading } from "../ui/states.tsx";
import { number } from "./format.ts";
import { useMergeCandidates, useMergeIssue } from "./issue-queries.ts";
import { statusLabel, type Issue, type IssueDetail } from "./status.ts";

const describe = (issue: Issue) => `${issue.title} (${statusLabel(issue.status)}, ${number.format(issue.occurrence_count)}×, ${issue.app_name}${issue.is_dev ? ", dev" : ""})`;

/**
 * Merging another issue of the project into this one: found by its title, confirmed before
 * anything moves (the source is deleted and cannot come back).
 */
export function Merge({ issue }: { issue: IssueDetail }) {
  const candidates = useMergeCandidates(issue.project_id, true);
  const merge = useMergeIssue(issue.project_id, issue.id);
  const [filter, setFilter] = useState("");
  const [chosenId, setChosenId] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [merged, setMerged] = useState<string | null>(null);

  const others = (candidates.data?.issues ?? []).filter((candidate) => candidate.id !== issue.id);
  const needle = filter.trim().toLowerCase();
  const shown = others.filter((candidate) => needle === "" || candidate.title.toLowerCase().includes(needle) || candidate.id === chosenId);
  const chosen = others.find((candidate) => candidate.id === chosenId);

  const run = () => {
    if (!chosen) return;
    merge.mutate(chosen.id, {
      onSuccess: () => {
        setMerged(chosen.title);
        setChosenId("");
        setConfirming(false);
      },
    });
  };

  return (
    <section className="card merge" aria-labelledby="merge-title">
      <h2 id="merge-title">Merge another issue into this one</h2>
      {merged && (
        <p role="status" className="merged">
          Merged “{merged}” into this issue.
        </p>
      )}
      {candidates.isPending ? (
        <Loading label="Loading the project's issues" />
      ) : candidates.isError ? (
        <ErrorState error={candidates.error} retry={() => void candidates.refetch()} />
      ) : others.length === 0 ? (
        <p className="muted">This project has no other issue.</p>
      ) : (
        <>
          <label htmlFor="merge-filter">Find by title</label>
          <input id="merge-filter" type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
          <label htmlFor="merge-source">Issue to merge in</label>
          <select
            id="merge-source"
            value={chosenId}
            onChange={(event) => {
              setChosenId(event.target.value);
              setConfirming(false);
            }}
          >
            <option value="">{shown.length === 0 ? "No issue matches" : `Choose one of ${shown.length}`}</option>
            {shown.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {describe(candidate)}
              </option>
            ))}
          </select>
          {candidates.data?.has_more && <p className="muted">The 200 most recently seen issues are listed.</p>}
          {!confirming ? (
            <button type="button" className="secondary" disabled={!chosen} onClick={() => setConfirming(true)}>
              Merge…
            </button>
          ) : (
            chosen && (
              <div className="confirm" role="group" aria-label="Confirm merge">
                <p>
                  Merge “{chosen.title}” into this issue? Its fingerprints, occurrences ({number.format(chosen.occurrence_count)}) and comments move here, and it is deleted.
                  Occurrences of sessions this issue already has are dropped.
                </p>
                <div className="actions">
                  <button type="button" className="danger" disabled={merge.isPending} onClick={run}>
                    {merge.isPending ? "Merging…" : "Merge issues"}
                  </button>
                  <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                    Cancel
                  </button>
                </div>
              </div>
            )
          )}
        </>
      )}
      {merge.isError && (
        <p role="alert" className="form-error">
          The merge was refused: {merge.error.message}
        </p>
      )}
    </section>
  );
}
