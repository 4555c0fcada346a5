import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

/**
 * Every app of the project, deleted ones included: a claim reassigns the anonymous id's rows in
 * all of them, and the ids travel in the claim fact (read from the directory's `apps` view).
 */
export const projectAppIds = (db: CommonQueryMethods, projectId: string) =>
  db.anyFirst(sql.type(z.object({ id: z.string() }))`select id from apps where project_id = ${projectId} order by id`);

/**
 * How many events of these apps carry `userId` (the `events` read model, through its
 * (app_id, user_id, timestamp) index): what a claim of that id reassigns.
 */
export const countUserEvents = async (db: CommonQueryMethods, appIds: readonly string[], userId: string) =>
  appIds.length === 0
    ? 0
    : db.oneFirst(sql.type(z.object({ count: z.number() }))`
        select count(*)::bigint as count from events where app_id = any(${sql.array(appIds, "uuid")}) and user_id = ${userId}`);
