import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

/**
 * Which of `clientEventIds` the app's stored events already carry, any age: the API's answer to
 * "new or updated" for an import, read through the (app_id, client_event_id) index.
 */
export async function storedClientEventIds(db: CommonQueryMethods, appId: string, clientEventIds: readonly string[]): Promise<Set<string>> {
  if (clientEventIds.length === 0) return new Set();
  const found = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    select distinct client_event_id::text as id from events
     where app_id = ${appId} and client_event_id = any(${sql.array(clientEventIds, "uuid")})`);
  return new Set(found);
}
