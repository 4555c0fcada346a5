import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { TeamFunnels, TeamMetrics } from "../../domain/definitions/decider.ts";
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

/**
 * The state the metrics decider decides a command on `projectId` from: that project's metric
 * definitions, soft-deleted ones included (their slugs decide restores). Decisions never look at
 * another project's definitions, so the rest of the team's are not read.
 */
export async function teamMetrics(db: CommonQueryMethods, teamId: string, projectId: string): Promise<TeamMetrics> {
  const rows = await db.any(sql.type(metricRow.extend({ deleted: z.boolean() }))`
    select ${metricColumns}, deleted_at is not null as deleted from metric_definitions where team_id = ${teamId} and project_id = ${projectId}`);
  return {
    teamId,
    definitions: rows.map(({ id, project_id, slug, deleted, name, description, documentation, schema_definition, aggregation_rules }) => ({
      id,
      projectId: project_id,
      slug,
      deleted,
      values: { name, description, documentation, schema_definition, aggregation_rules },
    })),
  };
}

/** The state the funnels decider decides a command on `projectId` from, as `teamMetrics` for metrics. */
export async function teamFunnels(db: CommonQueryMethods, teamId: string, projectId: string): Promise<TeamFunnels> {
  const rows = await db.any(sql.type(funnelRow.extend({ deleted: z.boolean() }))`
    select ${funnelColumns}, deleted_at is not null as deleted from funnel_definitions where team_id = ${teamId} and project_id = ${projectId}`);
  return {
    teamId,
    definitions: rows.map(({ id, project_id, slug, deleted, name, description, steps }) => ({ id, projectId: project_id, slug, deleted, values: { name, description, steps } })),
  };
}

/** An active definition by id with the team it belongs to, which decides who may read it. */
const withTeam = <R extends { team_id: string }>(row: R | null) => {
  if (!row) return null;
  const { team_id: teamId, ...definition } = row;
  return { teamId, definition };
};

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

export const metricById = async (db: CommonQueryMethods, id: string) =>
  withTeam(
    await db.maybeOne(sql.type(metricRow.extend({ team_id: z.string() }))`
      select ${metricColumns}, team_id from metric_definitions where id = ${id} and deleted_at is null`),
  );

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

export const funnelById = async (db: CommonQueryMethods, id: string) =>
  withTeam(
    await db.maybeOne(sql.type(funnelRow.extend({ team_id: z.string() }))`
      select ${funnelColumns}, team_id from funnel_definitions where id = ${id} and deleted_at is null`),
  );
