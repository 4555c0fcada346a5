import type { ReactNode } from "react";
import type { AuditEntry } from "./audit-filters.ts";
import { resourceLabel } from "./audit-filters.ts";
import { formatDateTime } from "./format.ts";
import type { ApiKey, Member } from "./queries.ts";

/** A value of `changes` or `metadata`, short enough for a table cell. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(shown).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** For updates `field: before → after`; for creates and deletes what the entry noted. */
function detailsOf(entry: AuditEntry): ReactNode {
  const changes = Object.entries(entry.changes ?? {});
  const metadata = Object.entries(entry.metadata ?? {});
  return (
    <ul className="changes">
      {changes.map(([field, change]) => {
        const { before, after } = (typeof change === "object" && change !== null ? change : { after: change }) as { before?: unknown; after?: unknown };
        return (
          <li key={`c-${field}`}>
            {field}: {"before" in (change as object) ? <>{shown(before)} → </> : null}
            <strong>{shown(after)}</strong>
          </li>
        );
      })}
      {metadata.map(([field, value]) => (
        <li key={`m-${field}`}>
          {field}: {shown(value)}
        </li>
      ))}
    </ul>
  );
}

/** Who did it, by name where the page knows them: a member's email, a key's name. */
function actorOf(entry: AuditEntry, members: Member[], apiKeys: ApiKey[]): string {
  if (entry.actor_type === "system") return "system";
  if (entry.actor_type === "user") return members.find((member) => member.user_id === entry.actor_id)?.email ?? `user ${entry.actor_id ?? "unknown"}`;
  const key = apiKeys.find((candidate) => candidate.id === entry.actor_id);
  return key ? `key ${key.name}` : `API key ${entry.actor_id ?? "unknown"}`;
}

export function AuditTable({ entries, members, apiKeys }: { entries: AuditEntry[]; members: Member[]; apiKeys: ApiKey[] }) {
  return (
    <table className="audit">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Action</th>
          <th scope="col">Resource</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id} data-audit={`${entry.action} ${entry.resource_type}`}>
            <td data-label="When">
              <time dateTime={entry.timestamp}>{formatDateTime(entry.timestamp)}</time>
            </td>
            <td data-label="Who" className="wrap">
              {actorOf(entry, members, apiKeys)}
            </td>
            <td data-label="Action">
              <span className={`pill action-${entry.action}`}>{entry.action}</span>
            </td>
            <td data-label="Resource" className="wrap">
              {resourceLabel(entry.resource_type)} <code className="id" title={entry.resource_id}>{entry.resource_id.slice(0, 8)}</code>
            </td>
            <td data-label="Details" className="wrap">
              {detailsOf(entry)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
