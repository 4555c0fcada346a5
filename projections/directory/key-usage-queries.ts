import { sql, type CommonQueryMethods } from "slonik";
import { jsonRows } from "../_runtime/sql.ts";

export type KeyUse = { key_id: string; last_used_at: string };

/**
 * Records when API keys were last used, in one upsert. `api_key_usage` is service state beside the
 * directory read model (not rebuilt by replay); the stored time only ever moves forward.
 * @throws the database error when Postgres cannot take the write
 */
export async function recordKeyUses(db: CommonQueryMethods, uses: readonly KeyUse[]): Promise<void> {
  await db.query(sql.unsafe`
    insert into api_key_usage (key_id, last_used_at)
    select key_id, last_used_at from jsonb_to_recordset(${jsonRows(uses)}) as r(key_id uuid, last_used_at timestamptz)
    on conflict (key_id) do update set last_used_at = greatest(api_key_usage.last_used_at, excluded.last_used_at)`);
}
