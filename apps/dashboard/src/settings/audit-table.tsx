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

/** Project and app ids read as their names where the page knows them. */
const named = (value: unknown, names: ReadonlyMap<string, string>) => (typeof value === "string" ? (names.get(value) ?? value) : shown(value));

/** For updates `field: before → after`; for creates and deletes what the entry noted. */
function detailsOf(entry: AuditEntry, names: ReadonlyMap<string, string>): ReactNode {
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
          {field}: {named(value, names)}
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

type Props = { entries: AuditEntry[]; members: Member[]; apiKeys: ApiKey[]; names: ReadonlyMap<string, string> };

export function AuditTable({ entries, members, apiKeys, names }: Props) {
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
            <td data-label="When" className="when">
              <div>
                <time dateTime={entry.timestamp}>{formatDateTime(entry.timestamp)}</time>
              </div>
            </td>
            <td data-label="Who" className="wrap">
              <div>
                {actorOf(entry, members, apiKeys)}
              </div>
            </td>
            <td data-label="Action">
              <div>
                <span className={`pill action-${entry.action}`}>{entry.action}</span>
              </div>
            </td>
            <td data-label="Resource" className="wrap">
              <div>
                {resourceLabel(entry.resource_type)}{" "}
                {names.has(entry.resource_id) ? (
                  <strong>{names.get(entry.resource_id)}</strong>
                ) : (
                  <code className="id" title={entry.resource_id}>
                    {entry.resource_id.slice(0, 8)}
                  </code>
                )}
              </div>
            </td>
            <td data-label="Details" className="wrap">
              <div>
                {detailsOf(entry, names)}
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
