import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { changesOf, type DefinitionSummary } from "../../../domain/definitions/decide.ts";
import type { DomainEvent } from "../../../domain/events.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { definitionSummaries } from "../../../projections/directory/definition-queries.ts";
import type { DatabasePool } from "slonik";
import { authorize, checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, type Principal } from "../auth/principal.ts";
import { teamCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import { definitionSlug, parse, uuid } from "../validation.ts";

type Row = { id: string; slug: string } & Record<string, unknown>;
type Scope = { teamId: string; projectId: string };

/**
 * What differs between metric and funnel definitions; the routes, authorization and commands are
 * the same for both: CRUD by slug under a project, a team-wide list and a lookup by id.
 */
export type DefinitionKind<R extends Row, C extends { slug: string }, P extends Record<string, unknown>> = {
  noun: "metric" | "funnel";
  plural: "metrics" | "funnels";
  table: "metric_definitions" | "funnel_definitions";
  read: Rule;
  write: Rule;
  createBody: z.ZodType<C>;
  patchBody: z.ZodType<P>;
  ofProject: (db: DatabasePool, projectId: string) => Promise<readonly R[]>;
  ofTeams: (db: DatabasePool, teamIds: readonly string[]) => Promise<readonly R[]>;
  bySlug: (db: DatabasePool, projectId: string, slug: string) => Promise<R | null>;
  byId: (db: DatabasePool, id: string) => Promise<(R & { team_id: string }) | null>;
  created: (scope: Scope, existing: readonly DefinitionSummary[], body: C, id: string) => DomainEvent[];
  updated: (row: R, teamId: string, changes: Record<string, { before: unknown; after: unknown }>) => DomainEvent;
  deleted: (row: R, teamId: string) => DomainEvent;
};

/** /v1/projects/:projectId/<plural>: definitions of one project, by slug. */
export function projectDefinitionRoutes<R extends Row, C extends { slug: string }, P extends Record<string, unknown>>(
  deps: ApiDeps,
  kind: DefinitionKind<R, C, P>,
) {
  const params = z.object({ projectId: uuid, slug: definitionSlug });

  async function definitionOf(caller: Principal, rawParams: unknown, rule: Rule) {
    const { projectId, slug } = parse(params, rawParams, "params");
    const project = await accessibleProject(deps, caller, projectId, rule);
    const row = await kind.bySlug(deps.pool, projectId, slug);
    if (!row) throw notFound(kind.noun);
    return { project, row };
  }

  async function present(projectId: string, slug: string) {
    const row = await kind.bySlug(deps.pool, projectId, slug);
    if (!row) throw notFound(kind.noun);
    return row;
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, kind.read);
      const { projectId } = parse(z.object({ projectId: uuid }), request.params, "params");
      await accessibleProject(deps, caller, projectId, kind.read);
      return { [kind.plural]: await kind.ofProject(deps.pool, projectId) };
    });

    app.get("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, kind.read);
      return (await definitionOf(caller, request.params, kind.read)).row;
    });

    app.post("/", async (request, reply) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, kind.write);
      const { projectId } = parse(z.object({ projectId: uuid }), request.params, "params");
      const body = parse(kind.createBody, request.body);
      const project = await accessibleProject(deps, caller, projectId, kind.write);
      const id = newId();
      await teamCommand(deps, caller, project.team_id, async () => {
        await accessibleProject(deps, caller, projectId, kind.write);
        const existing = await definitionSummaries(deps.pool, kind.table, projectId);
        return kind.created({ teamId: project.team_id, projectId }, existing, body, id);
      });
      return reply.code(201).send(await present(projectId, body.slug));
    });

    app.patch("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, kind.write);
      const body = parse(kind.patchBody, request.body);
      if (Object.values(body).every((value) => value === undefined)) throw invalid("body: name at least one field to change");
      const { project, row } = await definitionOf(caller, request.params, kind.write);
      await teamCommand(deps, caller, project.team_id, async () => {
        const current = (await definitionOf(caller, request.params, kind.write)).row;
        const changes = changesOf(current as Record<string, unknown>, body);
        return Object.keys(changes).length === 0 ? [] : [kind.updated(current, project.team_id, changes as Record<string, { before: unknown; after: unknown }>)];
      });
      return present(project.id, row.slug);
    });

    app.delete("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, kind.write);
      const { project } = await definitionOf(caller, request.params, kind.write);
      await teamCommand(deps, caller, project.team_id, async () => {
        const { row } = await definitionOf(caller, request.params, kind.write);
        return [kind.deleted(row, project.team_id)];
      });
      return { deleted: true };
    });
  };
}

/** /v1/<plural>: definitions across the caller's projects (`team_id` required) and by id. */
export function teamDefinitionRoutes<R extends Row, C extends { slug: string }, P extends Record<string, unknown>>(
  deps: ApiDeps,
  kind: DefinitionKind<R, C, P>,
) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ team_id: uuid }), request.query, "query");
      const teams = await visibleTeams(deps, caller, kind.read, query.team_id);
      return { [kind.plural]: await kind.ofTeams(deps.pool, teams) };
    });

    app.get("/by-id/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, kind.read);
      const { id } = parse(z.object({ id: uuid }), request.params, "params");
      const found = await kind.byId(deps.pool, id);
      if (!found) throw notFound(kind.noun);
      await authorize(deps, caller, found.team_id, kind.read, kind.noun);
      const { team_id: _team, ...row } = found;
      return row;
    });
  };
}
