import { notFound } from "../../domain/shared/errors.ts";
import { activeApp, activeProject } from "../../projections/directory/catalog-queries.ts";
import { activeKey } from "../../projections/directory/key-queries.ts";
import { authorize, type Rule } from "./auth/access.ts";
import type { Principal } from "./auth/principal.ts";
import type { ApiDeps } from "./deps.ts";

/** The project when the caller may apply `rule` to it; 404 for missing and foreign projects alike. */
export async function accessibleProject(deps: ApiDeps, caller: Principal, projectId: string, rule: Rule) {
  const project = await activeProject(deps.pool, projectId);
  if (!project) throw notFound("project");
  await authorize(deps, caller, project.team_id, rule, "project");
  return project;
}

/** The app when the caller may apply `rule` to it; 404 for missing and foreign apps alike. */
export async function accessibleApp(deps: ApiDeps, caller: Principal, appId: string, rule: Rule) {
  const app = await activeApp(deps.pool, appId);
  if (!app) throw notFound("app");
  await authorize(deps, caller, app.team_id, rule, "app");
  return app;
}

/** The API key when the caller may apply `rule` to it; 404 for missing and foreign keys alike. */
export async function accessibleKey(deps: ApiDeps, caller: Principal, keyId: string, rule: Rule) {
  const key = await activeKey(deps.pool, keyId);
  if (!key) throw notFound("api key");
  await authorize(deps, caller, key.team_id, rule, "api key");
  return key;
}
