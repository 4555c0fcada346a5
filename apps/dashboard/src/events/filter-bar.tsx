import type { FormEvent } from "react";
import { useSession } from "../session/session.tsx";
import { ENVIRONMENTS, LEVELS, type EventFilters, type Level } from "./filters.ts";
import { useProjectApps } from "./queries.ts";
import { useTeamProjects } from "../ui/team-queries.ts";
import { DataModeSwitch } from "../overview/controls.tsx";

type Change = (changes: Partial<Record<keyof EventFilters, string | undefined>>) => void;


/** The free-text filters, applied together on submit rather than one request per keystroke. */
const TEXT_FIELDS = [
  { key: "userId", label: "User id", placeholder: "user-42" },
  { key: "sessionId", label: "Session id", placeholder: "UUID" },
  { key: "screenName", label: "Screen", placeholder: "Exact name" },
  { key: "since", label: "Since", placeholder: "1h, 7d or 2026-11-01" },
  { key: "until", label: "Until", placeholder: "now" },
] as const;

/** Every filter of `GET /v1/events`: choices apply at once, typed values on "Apply". */
export function FilterBar({ filters, change }: { filters: EventFilters; change: Change }) {
  const { team } = useSession();
  // The same query (and cache entry) as the other pages' project picker.
  const projects = useTeamProjects(team.id);
  const project = useProjectApps(filters.project);
  const apps = project.data?.apps ?? [];

  const toggleLevel = (level: Level, on: boolean) => {
    const levels = on ? [...filters.levels, level] : filters.levels.filter((chosen) => chosen !== level);
    change({ levels: LEVELS.filter((candidate) => levels.includes(candidate)).join(",") });
  };

  const applyText = (submitted: FormEvent<HTMLFormElement>) => {
    submitted.preventDefault();
    const form = new FormData(submitted.currentTarget);
    change(Object.fromEntries(TEXT_FIELDS.map(({ key }) => [key, String(form.get(key) ?? "")])));
  };

  const textKey = TEXT_FIELDS.map(({ key }) => filters[key] ?? "").join("\u0000");
  const anyFilter = filters.appId || filters.levels.length > 0 || filters.environment || TEXT_FIELDS.some(({ key }) => filters[key]) || filters.dataMode !== "production";

  return (
    <div className="card event-filters">
      <div className="controls">
        <label className="project">
          Project
          <select value={filters.project ?? ""} onChange={(event) => change({ project: event.target.value, appId: undefined })}>
            <option value="">All projects</option>
            {(projects.data?.projects ?? []).map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </label>
        <label className="project">
          App
          <select value={filters.appId ?? ""} disabled={!filters.project} onChange={(event) => change({ appId: event.target.value })}>
            <option value="">{filters.project ? "All apps" : "Choose a project first"}</option>
            {apps.map((app) => (
              <option key={app.id} value={app.id}>
                {app.name} ({app.platform})
              </option>
            ))}
            {filters.appId && !apps.some((app) => app.id === filters.appId) && <option value={filters.appId}>{project.isPending ? "Loading…" : "Unknown app"}</option>}
          </select>
        </label>
        <label className="project">
          Environment
          <select value={filters.environment ?? ""} onChange={(event) => change({ environment: event.target.value })}>
            <option value="">Any</option>
            {ENVIRONMENTS.map((environment) => (
              <option key={environment} value={environment}>
                {environment}
              </option>
            ))}
          </select>
        </label>
        <label className="project">
          Order
          <select value={filters.order} onChange={(event) => change({ order: event.target.value === "asc" ? "asc" : undefined })}>
            <option value="desc">Newest first</option>
            <option value="asc">Oldest first</option>
          </select>
        </label>
        <fieldset className="levels">
          <legend>Level</legend>
          {LEVELS.map((level) => (
            <label key={level}>
              <input type="checkbox" checked={filters.levels.includes(level)} onChange={(event) => toggleLevel(level, event.target.checked)} />
              {level}
            </label>
          ))}
        </fieldset>
        <DataModeSwitch value={filters.dataMode} onChange={(mode) => change({ dataMode: mode === "production" ? undefined : mode })} />
      </div>
      <form key={textKey} className="controls text-filters" onSubmit={applyText} aria-label="Text filters">
        {TEXT_FIELDS.map(({ key, label, placeholder }) => (
          <label key={key} className="project">
            {label}
            <input name={key} defaultValue={filters[key] ?? ""} placeholder={placeholder} autoComplete="off" spellCheck={false} />
          </label>
        ))}
        <div className="filter-actions">
          <button type="submit">Apply</button>
          {anyFilter && (
            <button
              type="button"
              className="secondary"
              onClick={() =>
                change({ appId: undefined, levels: undefined, environment: undefined, dataMode: undefined, userId: undefined, sessionId: undefined, screenName: undefined, since: undefined, until: undefined })
              }
            >
              Clear filters
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
