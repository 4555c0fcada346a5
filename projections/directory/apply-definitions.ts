import { sql, type DatabaseTransactionConnection, type ValueExpression } from "slonik";
import type { DomainEvent } from "../../domain/events.ts";

type Of<T extends DomainEvent["type"]> = Extract<DomainEvent, { type: T }>;
type Context = { tx: DatabaseTransactionConnection; at: string };

const JSON_FIELDS = new Set(["schema_definition", "aggregation_rules", "steps"]);

const json = (value: unknown) => (value === null ? null : sql.jsonb(value as Parameters<typeof sql.jsonb>[0]));

function assignments(changes: Record<string, { after?: unknown }>) {
  return Object.entries(changes).map(([field, change]) => {
    const value = JSON_FIELDS.has(field) ? json(change.after) : (change.after as ValueExpression);
    return sql.fragment`${sql.identifier([field])} = ${value}`;
  });
}

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

export async function metricUpdated({ tx, at }: Context, event: Of<"MetricUpdated">): Promise<void> {
  const set = assignments(event.changes);
  if (set.length === 0) return;
  await tx.query(sql.unsafe`update metric_definitions set ${sql.join(set, sql.fragment`, `)}, updated_at = ${at} where id = ${event.metric_id}`);
}

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

export async function funnelUpdated({ tx, at }: Context, event: Of<"FunnelUpdated">): Promise<void> {
  const set = assignments(event.changes);
  if (set.length === 0) return;
  await tx.query(sql.unsafe`update funnel_definitions set ${sql.join(set, sql.fragment`, `)}, updated_at = ${at} where id = ${event.funnel_id}`);
}

export async function funnelDeleted({ tx, at }: Context, event: Of<"FunnelDeleted">): Promise<void> {
  await tx.query(sql.unsafe`update funnel_definitions set deleted_at = ${at}, updated_at = ${at} where id = ${event.funnel_id} and deleted_at is null`);
}

/** Deleting a project (or its team) soft-deletes its definitions. */
export async function definitionsDeleted({ tx, at }: Context, scope: { projectId?: string; teamId?: string }): Promise<void> {
  const where = scope.projectId ? sql.fragment`project_id = ${scope.projectId}` : sql.fragment`team_id = ${scope.teamId!}`;
  await tx.query(sql.unsafe`update metric_definitions set deleted_at = ${at}, updated_at = ${at} where ${where} and deleted_at is null`);
  await tx.query(sql.unsafe`update funnel_definitions set deleted_at = ${at}, updated_at = ${at} where ${where} and deleted_at is null`);
}
