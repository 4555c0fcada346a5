import { sql } from "slonik";
import { applyChanges, jsonValue as json, type Context, type Of } from "./row-updates.ts";

/** A restored metric keeps its id and creation time; everything else comes from the new definition. */
export async function metricDefined({ tx, at }: Context, event: Of<"MetricDefined">): Promise<void> {
  await tx.query(sql.unsafe`
    insert into metric_definitions (id, team_id, project_id, name, slug, description, documentation, schema_definition,
                                    aggregation_rules, created_at, updated_at)
    values (${event.metric_id}, ${event.team_id}, ${event.project_id}, ${event.name}, ${event.slug}, ${event.description},
            ${event.documentation}, ${json(event.schema_definition)}, ${json(event.aggregation_rules)}, ${at}, ${at})
    on conflict (id) do update set
      name = excluded.name, description = excluded.description, documentation = excluded.documentation,
      schema_definition = excluded.schema_definition, aggregation_rules = excluded.aggregation_rules,
      updated_at = excluded.updated_at, deleted_at = null`);
}

export const metricUpdated = (context: Context, event: Of<"MetricUpdated">) =>
  applyChanges(context, "metric_definitions", event.metric_id, event.changes);

export async function metricDeleted({ tx, at }: Context, event: Of<"MetricDeleted">): Promise<void> {
  await tx.query(sql.unsafe`update metric_definitions set deleted_at = ${at}, updated_at = ${at} where id = ${event.metric_id} and deleted_at is null`);
}

export async function funnelCreated({ tx, at }: Context, event: Of<"FunnelCreated">): Promise<void> {
  await tx.query(sql.unsafe`
    insert into funnel_definitions (id, team_id, project_id, name, slug, description, steps, created_at, updated_at)
    values (${event.funnel_id}, ${event.team_id}, ${event.project_id}, ${event.name}, ${event.slug}, ${event.description},
            ${json(event.steps)}, ${at}, ${at})
    on conflict (id) do nothing`);
}

export const funnelUpdated = (context: Context, event: Of<"FunnelUpdated">) =>
  applyChanges(context, "funnel_definitions", event.funnel_id, event.changes);

export async function funnelDeleted({ tx, at }: Context, event: Of<"FunnelDeleted">): Promise<void> {
  await tx.query(sql.unsafe`update funnel_definitions set deleted_at = ${at}, updated_at = ${at} where id = ${event.funnel_id} and deleted_at is null`);
}

/** Deleting a project (or its team) soft-deletes its definitions. */
export async function definitionsDeleted({ tx, at }: Context, scope: { projectId?: string; teamId?: string }): Promise<void> {
  const where = scope.projectId ? sql.fragment`project_id = ${scope.projectId}` : sql.fragment`team_id = ${scope.teamId!}`;
  await tx.query(sql.unsafe`update metric_definitions set deleted_at = ${at}, updated_at = ${at} where ${where} and deleted_at is null`);
  await tx.query(sql.unsafe`update funnel_definitions set deleted_at = ${at}, updated_at = ${at} where ${where} and deleted_at is null`);
}
