import { sql, type DatabaseTransactionConnection } from "slonik";
import type { UserClaimed } from "../../domain/identity/events.ts";

/** The part of a claim a read model needs to move rows from the anonymous id to the claimer. */
export type Reassignment = Pick<UserClaimed, "app_ids" | "anonymous_id" | "user_id">;

/**
 * Moves every row of `table` keyed on the claim's anonymous id, in any app of the project, to the
 * claiming user; returns how many moved. For event read models keyed by user id (events, metric events):
 * call it from the projector when it applies a UserClaimed fact, in the same transaction. The
 * table needs `app_id` and `user_id` columns; `app_ids` (every app of the project when the claim
 * was decided) lets each partition use an (app_id, user_id, ...) index instead of scanning.
 * Running it again is harmless, so a replay or a repeated claim gives the same rows.
 */
export async function reassignUser(tx: DatabaseTransactionConnection, table: string, claim: Reassignment): Promise<number> {
  if (claim.app_ids.length === 0) return 0;
  const result = await tx.query(sql.unsafe`
    update ${sql.identifier([table])} set user_id = ${claim.user_id}
     where app_id = any(${sql.array(claim.app_ids, "uuid")}) and user_id = ${claim.anonymous_id}`);
  return result.rowCount;
}
