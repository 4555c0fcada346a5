import { z } from "zod";
import { defineMetric } from "../../../domain/definitions/decide.ts";
import { metricById, metricBySlug, metricsOfProject, metricsOfTeams } from "../../../projections/directory/definition-queries.ts";
import type { Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { definitionSlug } from "../validation.ts";
import { projectDefinitionRoutes, teamDefinitionRoutes, type DefinitionKind } from "./definition-routes.ts";

export const METRICS_READ: Rule = { permission: "metrics:read", role: "member" };

const fields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2_000).nullable(),
  documentation: z.string().max(50_000).nullable(),
  schema_definition: z.record(z.unknown()).nullable(),
  aggregation_rules: z.record(z.unknown()).nullable(),
};

const createBody = z.object({
  name: fields.name,
  slug: definitionSlug,
  description: fields.description.optional(),
  documentation: fields.documentation.optional(),
  schema_definition: fields.schema_definition.optional(),
  aggregation_rules: fields.aggregation_rules.optional(),
});

const patchBody = z.object({
  name: fields.name.optional(),
  description: fields.description.optional(),
  documentation: fields.documentation.optional(),
  schema_definition: fields.schema_definition.optional(),
  aggregation_rules: fields.aggregation_rules.optional(),
});

type MetricRow = NonNullable<Awaited<ReturnType<typeof metricBySlug>>>;

const metrics: DefinitionKind<MetricRow, z.infer<typeof createBody>, z.infer<typeof patchBody>> = {
  noun: "metric",
  plural: "metrics",
  table: "metric_definitions",
  read: METRICS_READ,
  write: { permission: "metrics:write", role: "admin" },
  createBody,
  patchBody,
  ofProject: metricsOfProject,
  ofTeams: metricsOfTeams,
  bySlug: metricBySlug,
  byId: metricById,
  // A soft-deleted metric with the slug is restored under its old id, with its history.
  created: (scope, existing, body, id) =>
    defineMetric(scope, existing, body.slug, id, {
      name: body.name,
      description: body.description ?? null,
      documentation: body.documentation ?? null,
      schema_definition: body.schema_definition ?? null,
      aggregation_rules: body.aggregation_rules ?? null,
    }),
  updated: (row, teamId, changes) => ({ type: "MetricUpdated", v: 1, metric_id: row.id, team_id: teamId, changes }),
  deleted: (row, teamId) => ({ type: "MetricDeleted", v: 1, metric_id: row.id, team_id: teamId, slug: row.slug }),
};

/** /v1/projects/:projectId/metrics */
export const projectMetricRoutes = (deps: ApiDeps) => projectDefinitionRoutes(deps, metrics);
/** /v1/metrics and /v1/metrics/by-id/:id */
export const teamMetricRoutes = (deps: ApiDeps) => teamDefinitionRoutes(deps, metrics);
