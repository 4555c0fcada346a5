import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

/**
 * The active apps of the given projects (from the directory's `apps` view). Analytics read only
 * these: a deleted app's events stop being served, as in the events list.
 */
export async function activeAppsByProject(db: CommonQueryMethods, projectIds: readonly string[]): Promise<Map<string, string[]>> {
  const apps = new Map<string, string[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return apps;
  const rows = await db.any(sql.type(z.object({ id: z.string(), project_id: z.string() }))`
    select id, project_id from apps where project_id = any(${sql.array(projectIds, "uuid")}) and deleted_at is null order by id`);
  for (const row of rows) apps.get(row.project_id)?.push(row.id);
  return apps;
}

/** The active apps of one project. */
export const activeAppsOf = async (db: CommonQueryMethods, projectId: string): Promise<string[]> => (await activeAppsByProject(db, [projectId])).get(projectId) ?? [];
