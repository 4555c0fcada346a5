import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { DefinitionSummary } from "../../domain/definitions/decide.ts";
import { funnelStep } from "../../domain/definitions/events.ts";

const jsonObject = z.record(z.unknown()).nullable();

export const metricRow = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  documentation: z.string().nullable(),
  schema_definition: jsonObject,
  aggregation_rules: jsonObject,
  created_at: z.string(),
  updated_at: z.string(),
});
export type MetricRow = z.infer<typeof metricRow>;

export const funnelRow = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  steps: z.array(funnelStep),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FunnelRow = z.infer<typeof funnelRow>;

const metricColumns = sql.fragment`
  id, project_id, name, slug, description, documentation, schema_definition, aggregation_rules, created_at, updated_at`;
const funnelColumns = sql.fragment`id, project_id, name, slug, description, steps, created_at, updated_at`;

type Table = "metric_definitions" | "funnel_definitions";

/** Every definition of the project, soft-deleted ones included, for create decisions. */
export const definitionSummaries = (db: CommonQueryMethods, table: Table, projectId: string): Promise<readonly DefinitionSummary[]> =>
  db.any(sql.type(z.object({ id: z.string(), slug: z.string(), deleted: z.boolean() }))`
    select id, slug, deleted_at is not null as deleted from ${sql.identifier([table])} where project_id = ${projectId}`);

export const metricsOfProject = (db: CommonQueryMethods, projectId: string) =>
  db.any(sql.type(metricRow)`
    select ${metricColumns} from metric_definitions where project_id = ${projectId} and deleted_at is null order by slug`);

export const metricsOfTeams = (db: CommonQueryMethods, teamIds: readonly string[]) =>
  db.any(sql.type(metricRow)`
    select ${metricColumns} from metric_definitions
     where team_id = any(${sql.array(teamIds, "uuid")}) and deleted_at is null order by project_id, slug`);

export const metricBySlug = (db: CommonQueryMethods, projectId: string, slug: string) =>
  db.maybeOne(sql.type(metricRow)`
    select ${metricColumns} from metric_definitions where project_id = ${projectId} and slug = ${slug} and deleted_at is null`);

export const metricById = (db: CommonQueryMethods, id: string) =>
  db.maybeOne(sql.type(metricRow.extend({ team_id: z.string() }))`
    select ${metricColumns}, team_id from metric_definitions where id = ${id} and deleted_at is null`);

export const funnelsOfProject = (db: CommonQueryMethods, projectId: string) =>
  db.any(sql.type(funnelRow)`
    select ${funnelColumns} from funnel_definitions where project_id = ${projectId} and deleted_at is null order by slug`);

export const funnelsOfTeams = (db: CommonQueryMethods, teamIds: readonly string[]) =>
  db.any(sql.type(funnelRow)`
    select ${funnelColumns} from funnel_definitions
     where team_id = any(${sql.array(teamIds, "uuid")}) and deleted_at is null order by project_id, slug`);

export const funnelBySlug = (db: CommonQueryMethods, projectId: string, slug: string) =>
  db.maybeOne(sql.type(funnelRow)`
    select ${funnelColumns} from funnel_definitions where project_id = ${projectId} and slug = ${slug} and deleted_at is null`);

export const funnelById = (db: CommonQueryMethods, id: string) =>
  db.maybeOne(sql.type(funnelRow.extend({ team_id: z.string() }))`
    select ${funnelColumns}, team_id from funnel_definitions where id = ${id} and deleted_at is null`);
