import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { effectiveRetention, type Retention } from "../../domain/projects/retention.ts";

const retentionRow = z.object({
  id: z.string(),
  retention_days_events: z.number().nullable(),
  retention_days_metrics: z.number().nullable(),
  retention_days_funnels: z.number().nullable(),
});

export type ProjectRetention = { projectId: string; retention: Retention };

const toRetention = (row: z.infer<typeof retentionRow>): ProjectRetention => ({ projectId: row.id, retention: effectiveRetention(row) });

// Schema-qualified: the INGEST projectors read this inside their own transaction, whose search path
// starts with their generation schema; `public.projects` is the view over the directory's active
// generation, wherever the reader runs.

/**
 * The retention in force of the given projects, soft-deleted ones included (their rows are still
 * stored). A project the directory does not hold is missing from the answer.
 * @throws the database error when Postgres cannot answer
 */
export async function retentionOfProjects(db: CommonQueryMethods, projectIds: readonly string[]): Promise<ProjectRetention[]> {
  if (projectIds.length === 0) return [];
  const rows = await db.any(sql.type(retentionRow)`
    select id, retention_days_events, retention_days_metrics, retention_days_funnels
      from public.projects where id = any(${sql.array(projectIds, "uuid")})`);
  return rows.map(toRetention);
}

/**
 * The retention in force of every project the directory holds, soft-deleted ones included, for
 * the retention cleanup. Projects a re-created slug replaced are gone from the directory; their
 * rows take the defaults.
 * @throws the database error when Postgres cannot answer
 */
export async function allProjectRetentions(db: CommonQueryMethods): Promise<ProjectRetention[]> {
  const rows = await db.any(sql.type(retentionRow)`
    select id, retention_days_events, retention_days_metrics, retention_days_funnels from public.projects order by id`);
  return rows.map(toRetention);
}
