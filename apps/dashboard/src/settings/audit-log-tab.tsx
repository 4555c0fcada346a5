import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { useSearchParam } from "../ui/project-picker.tsx";
import { useChangeSearchParams } from "../ui/search-params.ts";
import { Empty, ErrorState, Loading } from "../ui/states.tsx";
import { ACTIONS, instantOf, RESOURCE_TYPES, resourceLabel, type AuditAction } from "./audit-filters.ts";
import { AuditTable } from "./audit-table.tsx";
import { keys, useTeamDetail, useTeamKeys } from "./queries.ts";
import { useTeamApps } from "../ui/team-queries.ts";

const PAGE_SIZE = 50;

/**
 * The team's audit log, newest first. Filters live in the URL (`?resource_type=project&action=
 * update&since=…&until=…`); older entries are fetched page by page with the API's cursor. Members
 * and keys, projects and apps are asked for alongside, to name who did what to what.
 */
export function AuditLogTab() {
  const { team } = useSession();
  const [resourceType, setResourceType] = useSearchParam("resource_type");
  const [actionParam, setAction] = useSearchParam("action");
  const [since, setSince] = useSearchParam("since");
  const [until, setUntil] = useSearchParam("until");
  const changeParams = useChangeSearchParams();
  const clearFilters = () =>
    changeParams((next) => {
      for (const name of ["resource_type", "action", "since", "until"]) next.delete(name);
    });
  const action = ACTIONS.find((candidate) => candidate === actionParam);
  const filters = { resource_type: resourceType ?? undefined, action, since: instantOf(since), until: instantOf(until) };

  const entries = useInfiniteQuery({
    queryKey: [...keys.audit(team.id), filters],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/teams/{teamId}/audit-logs", { params: { path: { teamId: team.id }, query: { ...filters, limit: PAGE_SIZE, cursor: pageParam } } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more && last.cursor ? last.cursor : undefined),
  });
  const members = useTeamDetail();
  const apiKeys = useTeamKeys();
  const projects = useQuery({ queryKey: keys.projects(team.id), queryFn: () => unwrap(api.GET("/v1/projects", { params: { query: { team_id: team.id } } })) });
  const apps = useTeamApps(team.id);
  // Deleted projects and apps are not listed any more: their entries keep showing the id.
  const names = useMemo(
    () => new Map([...(projects.data?.projects ?? []), ...(apps.data?.apps ?? [])].map((resource) => [resource.id, resource.name] as const)),
    [projects.data, apps.data],
  );
  const filtered = Boolean(resourceType || action || since || until);

  return (
    <div className="stack">
      <form className="controls audit-filters" aria-label="Audit log filters" onSubmit={(event) => event.preventDefault()}>
        <label className="project">
          Resource
          <select value={resourceType ?? ""} onChange={(event) => setResourceType(event.target.value)}>
            <option value="">Any</option>
            {RESOURCE_TYPES.map((type) => (
              <option key={type} value={type}>
                {resourceLabel(type)}
              </option>
            ))}
          </select>
        </label>
        <label className="project">
          Action
          <select value={action ?? ""} onChange={(event) => setAction(event.target.value as AuditAction | "")}>
            <option value="">Any</option>
            {ACTIONS.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label className="project">
          Since
          <input type="datetime-local" value={since ?? ""} onChange={(event) => setSince(event.target.value)} />
        </label>
        <label className="project">
          Until
          <input type="datetime-local" value={until ?? ""} onChange={(event) => setUntil(event.target.value)} />
        </label>
        {filtered && (
          <button type="button" className="secondary" onClick={clearFilters}>
            Clear filters
          </button>
        )}
      </form>

      <section className="card stack" aria-labelledby="audit-title">
        <h2 id="audit-title">Audit log</h2>
        {entries.data ? (
          entries.data.pages[0]?.audit_logs.length === 0 ? (
            <Empty>{filtered ? "No entries match these filters." : "Nothing recorded yet: changes to projects, apps, keys, members and integrations show up here."}</Empty>
          ) : (
            <>
              <AuditTable entries={entries.data.pages.flatMap((page) => page.audit_logs)} members={members.data?.members ?? []} apiKeys={apiKeys.data?.api_keys ?? []} names={names} />
              {entries.error && <ErrorState error={entries.error} retry={() => void entries.fetchNextPage()} />}
              {entries.hasNextPage ? (
                <div className="actions">
                  <button type="button" className="secondary" onClick={() => void entries.fetchNextPage()} disabled={entries.isFetchingNextPage}>
                    {entries.isFetchingNextPage ? "Loading…" : "Load older entries"}
                  </button>
                </div>
              ) : (
                <p className="muted">That is every entry{filtered ? " matching these filters" : ""}.</p>
              )}
            </>
          )
        ) : entries.error ? (
          <ErrorState error={entries.error} retry={() => void entries.refetch()} />
        ) : (
          <Loading label="Loading the audit log" />
        )}
      </section>
    </div>
  );
}
