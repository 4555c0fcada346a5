import { activeAppsByProject } from "../../../projections/derived-events/apps.ts";
import { projectsOfTeams } from "../../../projections/directory/catalog-queries.ts";
import type { ApiDeps } from "../deps.ts";

/** Active projects of `teams`, narrowed to `projectId` when given, each with its active apps. */
export async function projectsWithApps(deps: ApiDeps, teams: readonly string[], projectId?: string) {
  const projects = (await projectsOfTeams(deps.pool, teams)).filter((project) => projectId === undefined || project.id === projectId);
  const apps = await activeAppsByProject(deps.pool, projects.map((project) => project.id));
  return projects.map((project) => ({ project, apps: apps.get(project.id) ?? [] }));
}
