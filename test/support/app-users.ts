import { sql } from "slonik";
import { z } from "zod";
import { createApp, projectWithApp } from "./catalog.ts";
import type { Client } from "./http.ts";
import { waitUntil } from "./processes.ts";
import type { TestService } from "./service.ts";
import { streamHead } from "./streams.ts";

/** Waits until the INGEST read models have applied everything on the stream so far. */
export async function ingestSettled(service: TestService, readModels = ["app_users", "events"]): Promise<void> {
  const head = await streamHead(service.log, "INGEST");
  await waitUntil(
    "the INGEST read models to reach the head of the stream",
    async () => {
      const rows = await service.pool.any(sql.type(z.object({ last_seq: z.number() }))`
        select c.last_seq from projection_checkpoints c
          join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
         where c.projection = any(${sql.array(readModels, "text")})`);
      return rows.length === readModels.length && rows.every((row) => row.last_seq >= head);
    },
    20_000,
  );
}

/** One app user from GET /v1/app-users, searched by exact user id in a project. */
export async function appUser(http: Client, token: string, projectId: string, userId: string): Promise<any> {
  const response = await http.get(`/v1/app-users?project_id=${projectId}&data_mode=all&search=${encodeURIComponent(userId)}&limit=200`, { token });
  if (response.status !== 200) throw new Error(`GET /v1/app-users answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.users.find((user: any) => user.user_id === userId);
}

/** POST with a client key to an identity route. */
export const identity = (http: Client, clientKey: string, path: string, body: unknown) => http.post(`/v1/identity${path}`, body, { token: clientKey });

/** An app of a test project and its client key. */
export type AppWithKey = { app: any; clientKey: string };

/**
 * A new project with an iOS ("iOS", apple) and an Android ("Android", android) app, created by
 * `token` in `teamId` with the given bundle ids.
 */
export async function mobileProject(http: Client, token: string, teamId: string, bundleIds: { ios: string; android: string }) {
  const created = await projectWithApp(http, token, teamId, { name: "iOS", platform: "apple", bundle_id: bundleIds.ios });
  const droid = await createApp(http, token, created.project.id, { name: "Android", platform: "android", bundle_id: bundleIds.android });
  const apple: AppWithKey = { app: created.app, clientKey: created.clientKey };
  const android: AppWithKey = { app: droid, clientKey: droid.client_secret };
  return { projectId: created.project.id as string, apple, android };
}
