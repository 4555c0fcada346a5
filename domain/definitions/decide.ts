import { isDeepStrictEqual } from "node:util";
import type { DomainEvent } from "../events.ts";
import { conflict } from "../shared/errors.ts";
import type { FunnelStep } from "./events.ts";

/** A definition of a project as decisions need it: soft-deleted ones included. */
export type DefinitionSummary = { id: string; slug: string; deleted: boolean };

export type MetricInput = {
  name: string;
  description: string | null;
  documentation: string | null;
  schema_definition: Record<string, unknown> | null;
  aggregation_rules: Record<string, unknown> | null;
};

/** 409 while an active metric has the slug; a soft-deleted one is restored under its old id. */
export function defineMetric(
  scope: { teamId: string; projectId: string },
  existing: readonly DefinitionSummary[],
  slug: string,
  newId: string,
  input: MetricInput,
): DomainEvent[] {
  const same = existing.find((metric) => metric.slug === slug && !metric.deleted) ?? existing.find((metric) => metric.slug === slug);
  if (same && !same.deleted) throw conflict("a metric with this slug already exists in the project");
  return [
    {
      type: "MetricDefined",
      v: 1,
      metric_id: same?.id ?? newId,
      team_id: scope.teamId,
      project_id: scope.projectId,
      slug,
      ...input,
      restored: same !== undefined,
    },
  ];
}

/** 409 while an active funnel has the slug. */
export function createFunnel(
  scope: { teamId: string; projectId: string },
  existing: readonly DefinitionSummary[],
  input: { funnelId: string; slug: string; name: string; description: string | null; steps: FunnelStep[] },
): DomainEvent[] {
  if (existing.some((funnel) => funnel.slug === input.slug && !funnel.deleted)) {
    throw conflict("a funnel with this slug already exists in the project");
  }
  return [
    {
      type: "FunnelCreated",
      v: 1,
      funnel_id: input.funnelId,
      team_id: scope.teamId,
      project_id: scope.projectId,
      slug: input.slug,
      name: input.name,
      description: input.description,
      steps: input.steps,
    },
  ];
}

/** `{field: {before, after}}` for the fields of `patch` whose value differs (deep, for JSON values). */
export function changesOf<F extends string>(current: Record<F, unknown>, patch: Partial<Record<F, unknown>>) {
  const changes: Partial<Record<F, { before: unknown; after: unknown }>> = {};
  for (const [field, after] of Object.entries(patch) as [F, unknown][]) {
    if (after !== undefined && !isDeepStrictEqual(current[field], after)) changes[field] = { before: current[field], after };
  }
  return changes;
}
