import { sql, type SerializableValue } from "slonik";

/** Rows for `jsonb_to_recordset(...)`, slonik's recommended bulk-write recipe. */
export const jsonRows = (rows: readonly object[]) => sql.jsonb(rows as unknown as SerializableValue);
