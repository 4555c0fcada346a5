import { randomBytes } from "node:crypto";
import type { Client } from "./http.ts";

export const uniqueSlug = (label = "p") => `${label}-${randomBytes(4).toString("hex")}`;

async function created(response: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const answer = await response;
  if (answer.status !== 201) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A new project in `teamId` created by `token` (a user session or an agent key). */
export const createProject = (http: Client, token: string, teamId: string, fields: Record<string, unknown> = {}) =>
  created(http.post("/v1/projects", { team_id: teamId, name: "Project", slug: uniqueSlug(), ...fields }, { token }), "create project");

/** A new app of `projectId`; an apple app gets a unique bundle id unless one is given. */
export const createApp = (http: Client, token: string, projectId: string, fields: Record<string, unknown> = {}) =>
  created(
    http.post("/v1/apps", { name: "App", platform: "apple", project_id: projectId, bundle_id: `com.example.${randomBytes(3).toString("hex")}`, ...fields }, { token }),
    "create app",
  );

/** A project with one app in it, returning both and the app's client key; `projectFields` go into the project's creation. */
export async function projectWithApp(http: Client, token: string, teamId: string, appFields: Record<string, unknown> = {}, projectFields: Record<string, unknown> = {}) {
  const project = await createProject(http, token, teamId, projectFields);
  const app = await createApp(http, token, project.id, appFields);
  return { project, app, clientKey: app.client_secret as string };
}
