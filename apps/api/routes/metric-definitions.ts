import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { changesOf, defineMetric } from "../../../domain/definitions/decide.ts";
import { METRIC_FIELDS } from "../../../domain/definitions/events.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId, SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import {
  definitionSummaries,
  metricById,
  metricBySlug,
  metricsOfProject,
  metricsOfTeams,
} from "../../../projections/directory/definition-queries.ts";
import { actorOf, authorize, checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, type Principal } from "../auth/principal.ts";
import { runCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../project-access.ts";
import { parse, uuid } from "../validation.ts";

export const METRICS_READ: Rule = { permission: "metrics:read", role: "member" };
const WRITE: Rule = { permission: "metrics:write", role: "admin" };

const slug = z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$");
const fields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2_000).nullable(),
  documentation: z.string().max(50_000).nullable(),
  schema_definition: z.record(z.unknown()).nullable(),
  aggregation_rules: z.record(z.unknown()).nullable(),
};
const createBody = z.object({
  name: fields.name,
  slug,
  description: fields.description.optional(),
  documentation: fields.documentation.optional(),
  schema_definition: fields.schema_definition.optional(),
  aggregation_rules: fields.aggregation_rules.optional(),
});
const patchBody = z.object(Object.fromEntries(METRIC_FIELDS.map((field) => [field, fields[field].optional()])) as {
  [F in keyof typeof fields]: z.ZodOptional<(typeof fields)[F]>;
});
const projectParams = z.object({ projectId: uuid });
const metricParams = z.object({ projectId: uuid, slug });

/** /v1/projects/:projectId/metrics: metric definitions of one project. */
export function projectMetricRoutes(deps: ApiDeps) {
  async function metricOf(caller: Principal, params: unknown, rule: Rule) {
    const { projectId, slug } = parse(metricParams, params, "params");
    const project = await accessibleProject(deps, caller, projectId, rule);
    const metric = await metricBySlug(deps.pool, projectId, slug);
    if (!metric) throw notFound("metric");
    return { project, metric };
  }

  const teamCommand = (caller: Principal, teamId: string, decide: Parameters<typeof runCommand>[1]["decide"]) =>
    runCommand(deps, { aggregate: "team", id: teamId, actor: actorOf(caller), decide });

  async function present(projectId: string, slugValue: string) {
    const metric = await metricBySlug(deps.pool, projectId, slugValue);
    if (!metric) throw notFound("metric");
    return metric;
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, METRICS_READ);
      const { projectId } = parse(projectParams, request.params, "params");
      await accessibleProject(deps, caller, projectId, METRICS_READ);
      return { metrics: await metricsOfProject(deps.pool, projectId) };
    });

    app.get("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, METRICS_READ);
      return (await metricOf(caller, request.params, METRICS_READ)).metric;
    });

    app.post("/", async (request, reply) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const { projectId } = parse(projectParams, request.params, "params");
      const body = parse(createBody, request.body);
      const project = await accessibleProject(deps, caller, projectId, WRITE);
      const metricId = newId();
      await teamCommand(caller, project.team_id, async () => {
        await accessibleProject(deps, caller, projectId, WRITE);
        return defineMetric({ teamId: project.team_id, projectId }, await definitionSummaries(deps.pool, "metric_definitions", projectId), body.slug, metricId, {
          name: body.name,
          description: body.description ?? null,
          documentation: body.documentation ?? null,
          schema_definition: body.schema_definition ?? null,
          aggregation_rules: body.aggregation_rules ?? null,
        });
      });
      return reply.code(201).send(await present(projectId, body.slug));
    });

    app.patch("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const body = parse(patchBody, request.body);
      if (Object.values(body).every((value) => value === undefined)) throw invalid("body: name at least one field to change");
      const { project, metric } = await metricOf(caller, request.params, WRITE);
      await teamCommand(caller, project.team_id, async () => {
        const current = (await metricOf(caller, request.params, WRITE)).metric;
        const changes = changesOf(current, body);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: "MetricUpdated", v: 1, metric_id: current.id, team_id: project.team_id, changes }];
      });
      return present(project.id, metric.slug);
    });

    app.delete("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const { project } = await metricOf(caller, request.params, WRITE);
      await teamCommand(caller, project.team_id, async () => {
        const { metric } = await metricOf(caller, request.params, WRITE);
        return [{ type: "MetricDeleted", v: 1, metric_id: metric.id, team_id: project.team_id, slug: metric.slug }];
      });
      return { deleted: true };
    });
  };
}

/** /v1/metrics: metric definitions across the caller's projects. */
export function teamMetricRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ team_id: uuid }), request.query, "query");
      const teams = await visibleTeams(deps, caller, METRICS_READ, query.team_id);
      return { metrics: await metricsOfTeams(deps.pool, teams) };
    });

    app.get("/by-id/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, METRICS_READ);
      const { id } = parse(z.object({ id: uuid }), request.params, "params");
      const found = await metricById(deps.pool, id);
      if (!found) throw notFound("metric");
      await authorize(deps, caller, found.team_id, METRICS_READ, "metric");
      const { team_id: _team, ...metric } = found;
      return metric;
    });
  };
}
