import { useSearchParams } from "react-router";
import { useSession } from "../session/session.tsx";
import { useChangeSearchParams } from "../ui/search-params.ts";
import { type BoardScope, type DataMode } from "./board-queries.ts";
import { useTeamApps, useTeamProjects } from "../ui/team-queries.ts";
import { dataModeOf } from "../overview/window.ts";
import { DataModeSwitch } from "../overview/controls.tsx";


/**
 * The board's view from the URL: `?project=` (or `?project_id=`, as notification mails link; none
 * means every project of the team), `?app=` and `?mode=` (the API's data_mode, production unless
 * asked). Changing a filter keeps the others, so a view can be reloaded and shared.
 */
export function useBoardView() {
  const { team } = useSession();
  const [params] = useSearchParams();
  const changeParams = useChangeSearchParams();
  const projectId = params.get("project") ?? params.get("project_id") ?? undefined;
  const scope: BoardScope = { teamId: team.id, projectId, appId: params.get("app") ?? undefined, dataMode: dataModeOf(params.get("mode")) };

  const update = (changes: Record<string, string | undefined>) =>
    changeParams((next) => {
      for (const [name, value] of Object.entries(changes)) {
        if (value === undefined || value === "") next.delete(name);
        else next.set(name, value);
      }
    });

  return {
    scope,
    focused: params.get("status"),
    // A mail's project_id gives way to the choice made here; an app of another project means nothing.
    chooseProject: (id: string | undefined) => update({ project: id, project_id: undefined, app: undefined }),
    chooseApp: (id: string | undefined) => update({ app: id }),
    chooseMode: (mode: DataMode) => update({ mode: mode === "production" ? undefined : mode }),
  };
}

export function BoardFilters({ view }: { view: ReturnType<typeof useBoardView> }) {
  const { scope, chooseProject, chooseApp, chooseMode } = view;
  const projects = useTeamProjects(scope.teamId);
  const apps = useTeamApps(scope.teamId);
  const projectList = projects.data?.projects ?? [];
  const appList = (apps.data?.apps ?? []).filter((app) => scope.projectId === undefined || app.project_id === scope.projectId);
  const projectName = (id: string) => projectList.find((project) => project.id === id)?.name;

  return (
    <div className="controls">
      <label className="project">
        Project
        <select value={scope.projectId ?? ""} onChange={(event) => chooseProject(event.target.value || undefined)}>
          <option value="">All projects</option>
          {projectList.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
          {scope.projectId !== undefined && !projectList.some((project) => project.id === scope.projectId) && (
            <option value={scope.projectId}>{projects.isPending ? "Loading…" : "Unknown project"}</option>
          )}
        </select>
      </label>
      <label className="project">
        App
        <select value={scope.appId ?? ""} onChange={(event) => chooseApp(event.target.value || undefined)}>
          <option value="">All apps</option>
          {appList.map((app) => (
            <option key={app.id} value={app.id}>
              {scope.projectId === undefined && projectName(app.project_id) ? `${app.name} (${projectName(app.project_id)})` : app.name}
            </option>
          ))}
          {scope.appId !== undefined && !appList.some((app) => app.id === scope.appId) && <option value={scope.appId}>{apps.isPending ? "Loading…" : "Unknown app"}</option>}
        </select>
      </label>
      <DataModeSwitch value={scope.dataMode} onChange={chooseMode} />
    </div>
  );
}
