import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { metricsDecider, type MetricCommand, type TeamMetrics } from "../../../domain/definitions/decider.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { metricById, metricBySlug, metricsOfProject, metricsOfTeams, teamMetrics, type MetricRow } from "../../../projections/directory/definition-queries.ts";
import type { Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { changingSomething } from "../schemas/common.ts";
import { metricBody, metricCreateExamples } from "../schemas/definitions.ts";
import { definitionSlug } from "../validation.ts";
import { projectDefinitionRoutes, teamDefinitionRoutes, type DefinitionInput, type DefinitionKind } from "./definition-routes.ts";

export const METRICS_READ: Rule = { permission: "metrics:read", role: "member" };
const METRICS_WRITE: Rule = { permission: "metrics:write", role: "admin" };

const fields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2_000).nullable(),
  documentation: z.string().max(50_000).nullable(),
  schema_definition: z.record(z.unknown()).nullable().describe("A JSON schema of the metric's attributes"),
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

const patchBody = changingSomething(
  z.object({
    name: fields.name.optional(),
    description: fields.description.optional(),
    documentation: fields.documentation.optional(),
    schema_definition: fields.schema_definition.optional(),
    aggregation_rules: fields.aggregation_rules.optional(),
  }),
);

const metrics: DefinitionKind<MetricRow, TeamMetrics, MetricCommand> = {
  noun: "metric",
  plural: "metrics",
  read: METRICS_READ,
  write: METRICS_WRITE,
  body: metricBody,
  ofProject: metricsOfProject,
  ofTeams: metricsOfTeams,
  bySlug: metricBySlug,
  byId: metricById,
  decider: metricsDecider,
  state: teamMetrics,
  remove: (ref) => ({ type: "DeleteMetric", ...ref }),
};

const input: DefinitionInput<typeof createBody, typeof patchBody, MetricCommand> = {
  create: {
    summary: "Define a metric",
    description:
      "Events whose message is `metric:<slug>:<phase>` are queried under the slug. The slug is unique among the project's active metrics; a soft-deleted metric with the slug is restored under its old id, with its events.",
    body: createBody,
    examples: metricCreateExamples,
    command: (projectId, { slug, name, description, documentation, schema_definition, aggregation_rules }) => ({
      type: "DefineMetric",
      metricId: newId(),
      projectId,
      slug,
      values: {
        name,
        description: description ?? null,
        documentation: documentation ?? null,
        schema_definition: schema_definition ?? null,
        aggregation_rules: aggregation_rules ?? null,
      },
    }),
  },
  update: {
    description: "Only the fields sent change; a body that alters nothing records nothing.",
    body: patchBody,
    command: (ref, patch) => ({ type: "UpdateMetric", ...ref, patch }),
  },
};

/** /v1/projects/:projectId/metrics */
export const projectMetricRoutes = (deps: ApiDeps): FastifyPluginAsyncZod => projectDefinitionRoutes(deps, metrics, input);

/** /v1/metrics and /v1/metrics/by-id/:id */
export const teamMetricRoutes = (deps: ApiDeps) => teamDefinitionRoutes(deps, metrics);
