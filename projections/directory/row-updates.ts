import { sql, type DatabaseTransactionConnection, type ValueExpression } from "slonik";
import type { DomainEvent } from "../../domain/events.ts";

export type Of<T extends DomainEvent["type"]> = Extract<DomainEvent, { type: T }>;
export type Context = { tx: DatabaseTransactionConnection; at: string };

/** Columns holding JSON documents (definition schemas, rules and funnel steps). */
const JSON_COLUMNS = new Set(["schema_definition", "aggregation_rules", "steps"]);

export const jsonValue = (value: unknown) => (value === null ? null : sql.jsonb(value as Parameters<typeof sql.jsonb>[0]));

/**
 * Applies an update fact's `{field: {before, after}}` to its row: every field takes its `after`
 * value. The field names come from the event schema's enum of updatable fields, never from input.
 */
export async function applyChanges(
  { tx, at }: Context,
  table: "projects" | "metric_definitions" | "funnel_definitions",
  id: string,
  changes: Partial<Record<string, { after?: unknown }>>,
): Promise<void> {
  const assignments = Object.entries(changes).map(([field, change]) => {
    const value = JSON_COLUMNS.has(field) ? jsonValue(change?.after) : (change?.after as ValueExpression);
    return sql.fragment`${sql.identifier([field])} = ${value}`;
  });
  if (assignments.length === 0) return;
  await tx.query(sql.unsafe`
    update ${sql.identifier([table])} set ${sql.join(assignments, sql.fragment`, `)}, updated_at = ${at} where id = ${id}`);
}
