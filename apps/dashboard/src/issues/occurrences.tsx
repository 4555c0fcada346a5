import { when } from "./format.ts";
import type { IssueDetail } from "./status.ts";

type Occurrence = IssueDetail["occurrences"][number];
type Props = { occurrences: Occurrence[]; total: number; hasMore: boolean; loadingMore: boolean; loadMore: () => void; moreError: Error | null };

/** The issue's occurrences, newest first; on a phone each row becomes a small block of labelled values. */
export function Occurrences({ occurrences, total, hasMore, loadingMore, loadMore, moreError }: Props) {
  return (
    <section className="card" aria-labelledby="occurrences-title">
      <h2 id="occurrences-title">
        Occurrences <span className="muted">({occurrences.length} of {total} shown)</span>
      </h2>
      {occurrences.length === 0 ? (
        <p className="muted">No occurrences recorded.</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Occurrences table">
          <table className="occurrences">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">User</th>
                <th scope="col">App version</th>
                <th scope="col">SDK</th>
                <th scope="col">Environment</th>
                <th scope="col">Country</th>
                <th scope="col">Session</th>
              </tr>
            </thead>
            <tbody>
              {occurrences.map((occurrence) => (
                <tr key={occurrence.id}>
                  <td data-label="When">{when(occurrence.timestamp)}</td>
                  <td data-label="User">{occurrence.user_id ?? <span className="muted">anonymous</span>}</td>
                  <td data-label="App version">{occurrence.app_version ?? "–"}</td>
                  <td data-label="SDK">{[occurrence.sdk_name, occurrence.sdk_version].filter(Boolean).join(" ") || "–"}</td>
                  <td data-label="Environment">{occurrence.environment}</td>
                  <td data-label="Country">{occurrence.country_code ?? "–"}</td>
                  <td data-label="Session">
                    <code title={occurrence.session_id}>{occurrence.session_id.slice(0, 8)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {moreError && (
        <p role="alert" className="form-error">
          Could not load more: {moreError.message}
        </p>
      )}
      {hasMore && (
        <button type="button" className="more" onClick={loadMore} disabled={loadingMore}>
          {loadingMore ? "Loading…" : "More occurrences"}
        </button>
      )}
    </section>
  );
}
