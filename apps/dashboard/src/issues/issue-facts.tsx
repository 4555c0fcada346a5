import type { ReactNode } from "react";
import { number, when } from "./format.ts";
import type { IssueDetail } from "./status.ts";

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** "2.0.0 → 2.1.0" when the SDK changed between the first and the last occurrence, else the one version. */
function sdkRange(first: string | null, last: string | null): string {
  if (first === null || last === null || first === last) return first ?? last ?? "–";
  return `${first} → ${last}`;
}

/** The issue's own fields, as the API gives them. */
export function IssueFacts({ issue }: { issue: IssueDetail }) {
  return (
    <section className="card" aria-labelledby="facts-title">
      <h2 id="facts-title">Details</h2>
      <dl className="facts">
        <Fact label="App">
          {issue.app_name}
          {issue.is_dev ? " (development)" : ""}
        </Fact>
        <Fact label="Occurrences">{number.format(issue.occurrence_count)}</Fact>
        <Fact label="Users affected">{number.format(issue.unique_user_count)}</Fact>
        <Fact label="Source module">{issue.source_module ?? "–"}</Fact>
        <Fact label="First seen">{when(issue.first_seen_at)}</Fact>
        <Fact label="Last seen">{when(issue.last_seen_at)}</Fact>
        <Fact label="SDK versions">{sdkRange(issue.first_seen_sdk_version, issue.last_seen_sdk_version)}</Fact>
        <Fact label="Resolved in version">{issue.resolved_at_version ?? "–"}</Fact>
        {issue.snoozed_at && <Fact label="Snoozed since">{when(issue.snoozed_at)}</Fact>}
        <Fact label="Last notified">{when(issue.last_notified_at)}</Fact>
        <Fact label="Created">{when(issue.created_at)}</Fact>
      </dl>
    </section>
  );
}

/** The grouping keys that lead here; a merge adds the source's. */
export function Fingerprints({ fingerprints }: { fingerprints: string[] }) {
  return (
    <section className="card" aria-labelledby="fingerprints-title">
      <h2 id="fingerprints-title">Fingerprints ({fingerprints.length})</h2>
      <ul className="plain-list fingerprints">
        {fingerprints.map((fingerprint) => (
          <li key={fingerprint}>
            <code>{fingerprint}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}
