import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { metricsDecider, type MetricCommand, type TeamMetrics } from "../../../domain/definitions/decider.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { metricById, metricBySlug, metricsOfProject, metricsOfTeams, teamMetrics, type MetricRow } from "../../../projections/directory/definition-queries.ts";
import { definitionParams } from "../analytics/params.ts";
import { team, type Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { metricBody } from "../schemas/definitions.ts";
import { definitionSlug } from "../validation.ts";
import { conflictBody, definitionWrites, projectDefinitionRoutes, projectParams, requireAField, teamDefinitionRoutes, type DefinitionKind } from "./definition-routes.ts";

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

const patchBody = z.object({
  name: fields.name.optional(),
  description: fields.description.optional(),
  documentation: fields.documentation.optional(),
  schema_definition: fields.schema_definition.optional(),
  aggregation_rules: fields.aggregation_rules.optional(),
});

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

const tags = ["metrics"];
const schemaExample = { type: "object", properties: { step: { type: "string" } } };

/** /v1/projects/:projectId/metrics */
export function projectMetricRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const writes = definitionWrites(deps, metrics);

  return async (app) => {
    projectDefinitionRoutes(app, deps, metrics);

    app.post(
      "/",
      {
        schema: {
          summary: "Define a metric",
          description:
            "Events whose message is `metric:<slug>:<phase>` are queried under the slug. The slug is unique among the project's active metrics; a soft-deleted metric with the slug is restored under its old id, with its events.",
          tags,
          params: projectParams,
          body: createBody,
          response: { 201: metricBody, 409: conflictBody },
          examples: {
            body: { name: "Checkout", slug: "checkout", description: "From cart to paid order", schema_definition: schemaExample },
            201: {
              id: "0b5f3f3e-8f4a-4c8e-9d61-2a7f5c1e9b20",
              project_id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
              name: "Checkout",
              slug: "checkout",
              description: "From cart to paid order",
              documentation: null,
              schema_definition: schemaExample,
              aggregation_rules: null,
              created_at: "2025-01-15T09:30:00.000Z",
              updated_at: "2025-01-15T09:30:00.000Z",
            },
          },
        },
        config: { access: team(METRICS_WRITE) },
      },
      async (request, reply) => {
        const { projectId } = request.params;
        const { slug, name, description, documentation, schema_definition, aggregation_rules } = request.body;
        await writes.decide(request.caller, projectId, {
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
        });
        return reply.code(201).send(await writes.present(projectId, slug));
      },
    );

    app.patch(
      "/:slug",
      {
        schema: {
          summary: "Change a metric definition",
          description: "Only the fields sent change; a body that alters nothing records nothing.",
          tags,
          params: definitionParams,
          body: patchBody,
          response: { 200: metricBody },
        },
        config: { access: team(METRICS_WRITE) },
      },
      async (request) => {
        requireAField(request.body);
        const { projectId, slug } = request.params;
        await writes.decide(request.caller, projectId, { type: "UpdateMetric", projectId, slug, patch: request.body });
        return writes.present(projectId, slug);
      },
    );
  };
}

/** /v1/metrics and /v1/metrics/by-id/:id */
export const teamMetricRoutes = (deps: ApiDeps) => teamDefinitionRoutes(deps, metrics);
