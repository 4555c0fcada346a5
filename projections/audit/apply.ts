import { sql } from "slonik";
import { decodeDomainEnvelopeOf } from "../../domain/events.ts";
import { isDetectionFactType } from "../../domain/issues/events.ts";
import { derivedId } from "../../domain/shared/ids.ts";
import type { Projection } from "../_runtime/projection.ts";
import { jsonRows } from "../_runtime/sql.ts";
import { auditEntriesFor } from "./entries.ts";

export const auditProjection: Projection = {
  name: "audit",
  stream: "DOMAIN",
  migrationsDir: new URL("./migrations/", import.meta.url),
  apply: async (tx, facts) => {
    const rows = [];
    for (const fact of facts) {
      // Detection is never audited (entries.ts), and its messages carry hundreds of facts.
      const envelope = decodeDomainEnvelopeOf(fact.data, (type) => !isDetectionFactType(type));
      let index = 0;
      for (const event of envelope.events) {
        for (const entry of auditEntriesFor(event, envelope.at)) {
          rows.push({
            ...entry,
            id: derivedId(`audit:${envelope.id}:${index++}`),
            actor_type: envelope.actor.type,
            actor_id: envelope.actor.id,
            timestamp: envelope.at,
          });
        }
      }
    }
    if (rows.length === 0) return;
    await tx.query(sql.unsafe`
      insert into audit_logs (id, team_id, actor_type, actor_id, action, resource_type, resource_id, changes, metadata, "timestamp")
      select id, team_id, actor_type, actor_id, action, resource_type, resource_id, changes, metadata, "timestamp"
        from jsonb_to_recordset(${jsonRows(rows)}) as r(
          id uuid, team_id uuid, actor_type text, actor_id text, action text, resource_type text,
          resource_id text, changes jsonb, metadata jsonb, "timestamp" timestamptz)
      on conflict (id) do nothing`);
  },
};
