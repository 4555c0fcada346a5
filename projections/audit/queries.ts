import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { actorSchema } from "../../domain/shared/envelope.ts";

/** What an audit entry records (projections/audit/entries.ts writes nothing else). */
export const AUDIT_ACTIONS = ["create", "update", "delete"] as const;

const auditRow = z.object({
  id: z.string(),
  team_id: z.string(),
  actor_type: actorSchema.shape.type,
  actor_id: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  resource_type: z.string(),
  resource_id: z.string(),
  changes: z.record(z.unknown()).nullable(),
  metadata: z.record(z.unknown()).nullable(),
  timestamp: z.string(),
});

export type AuditFilter = {
  teamId: string;
  resourceType?: string;
  resourceId?: string;
  actorId?: string;
  action?: string;
  since?: Date;
  until?: Date;
  after?: { timestamp: string; id: string };
  limit: number;
};

/** Newest first, keyset over (timestamp, id); fetches limit + 1 rows so the caller knows if more exist. */
export function listAuditLogs(db: CommonQueryMethods, filter: AuditFilter) {
  const conditions = [sql.fragment`team_id = ${filter.teamId}`];
  if (filter.resourceType) conditions.push(sql.fragment`resource_type = ${filter.resourceType}`);
  if (filter.resourceId) conditions.push(sql.fragment`resource_id = ${filter.resourceId}`);
  if (filter.actorId) conditions.push(sql.fragment`actor_id = ${filter.actorId}`);
  if (filter.action) conditions.push(sql.fragment`action = ${filter.action}`);
  if (filter.since) conditions.push(sql.fragment`"timestamp" >= ${filter.since.toISOString()}`);
  if (filter.until) conditions.push(sql.fragment`"timestamp" <= ${filter.until.toISOString()}`);
  if (filter.after) conditions.push(sql.fragment`("timestamp", id) < (${filter.after.timestamp}::timestamptz, ${filter.after.id}::uuid)`);
  return db.any(sql.type(auditRow)`
    select id, team_id, actor_type, actor_id, action, resource_type, resource_id, changes, metadata, "timestamp"
      from audit_logs where ${sql.join(conditions, sql.fragment` and `)}
     order by "timestamp" desc, id desc limit ${filter.limit + 1}`);
}
