import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { DatabasePool } from "slonik";
import { z } from "zod";
import type { DefinitionRef } from "../../../domain/definitions/decider.ts";
import type { DomainEvent } from "../../../domain/events.ts";
import type { Decider } from "../../../domain/shared/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { definitionParams } from "../analytics/params.ts";
import { authorize, team, visibleTeams, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import type { RouteExamples } from "../plugins/openapi.ts";
import { deletedBody, errorBody, idParams, projectParams, TAGS } from "../schemas/common.ts";
import { teamCommand } from "../team-command.ts";
import { uuid } from "../validation.ts";

/** What every definition has; each kind's schema declares the rest, and the reply is checked against it. */
export type DefinitionRow = { id: string; project_id: string; slug: string };

/**
 * One kind of definition. Metric and funnel definitions are the same resource in all but their
 * fields: CRUD by slug under a project, a team-wide list and a lookup by id, every change decided
 * by the kind's decider on the team's subject. The routes are declared here, once; each kind's
 * route file gives its rows, its input (DefinitionInput) and its commands.
 */
export type DefinitionKind<Row extends DefinitionRow, State, Command> = {
  noun: "metric" | "funnel";
  plural: "metrics" | "funnels";
  read: Rule;
  write: Rule;
  body: z.ZodType<Row>;
  ofProject: (db: DatabasePool, projectId: string) => Promise<readonly Row[]>;
  ofTeams: (db: DatabasePool, teamIds: readonly string[]) => Promise<readonly Row[]>;
  bySlug: (db: DatabasePool, projectId: string, slug: string) => Promise<Row | null>;
  byId: (db: DatabasePool, id: string) => Promise<{ teamId: string; definition: Row } | null>;
  decider: Decider<State, Command, DomainEvent>;
  /** The decider's state for a command on `projectId`, a project of `teamId`. */
  state: (db: DatabasePool, teamId: string, projectId: string) => Promise<State>;
  remove: (ref: DefinitionRef) => Command;
};

/**
 * What a kind's create and update take and the command each becomes. Each kind's `command` is typed
 * against its own body schema's output, and the routes hand it the body that schema parsed. Inside
 * the routes the body's type stays the type parameter's, which the compiler checks loosely: keep
 * the routes passing `request.body` and nothing else.
 */
export type DefinitionInput<Create extends z.ZodTypeAny, Patch extends z.ZodTypeAny, Command> = {
  create: {
    summary: string;
    description: string;
    body: Create;
    examples: RouteExamples;
    /** The create command, which names the slug the new definition is read back by. */
    command: (projectId: string, body: z.output<Create>) => Command & { slug: string };
  };
  update: {
    description: string;
    /** Refined by changingSomething: an update names at least one field. */
    body: Patch;
    command: (ref: DefinitionRef, patch: z.output<Patch>) => Command;
  };
};

/** What the writes of a kind share: a command on a project's definitions, and the definition read back after it. */
function definitionWrites<Row extends DefinitionRow, State, Command>(deps: ApiDeps, kind: DefinitionKind<Row, State, Command>) {
  return {
    /** Runs `command` after checking the caller may write the project's definitions. */
    async decide(caller: Principal, projectId: string, command: Command) {
      const { team_id: teamId } = await accessibleProject(deps, caller, projectId, kind.write);
      return teamCommand(deps, caller, {
        teamId,
        decider: kind.decider,
        // The project, not only the team, is checked again on every attempt: the project may be
        // deleted, or the caller's role lowered, meanwhile; teamCommand's `access` sees only the team.
        load: async (id) => {
          await accessibleProject(deps, caller, projectId, kind.write);
          return kind.state(deps.pool, id, projectId);
        },
        command,
      });
    },

    /** Reads back after a write; a delete racing in between answers 404 rather than failing. */
    async present(projectId: string, slug: string): Promise<Row> {
      const row = await kind.bySlug(deps.pool, projectId, slug);
      if (!row) throw notFound(kind.noun);
      return row;
    },
  };
}

/** `{metrics: [...]}` or `{funnels: [...]}`. */
const listOf = ({ plural, body }: { plural: string; body: z.ZodType<DefinitionRow> }) => z.object({ [plural]: z.array(body) });

/**
 * /v1/projects/:projectId/<plural>: list, create, and get, change and delete by slug. These routes,
 * and the team routes below, see rows as `DefinitionRow`: fastify's type provider cannot type a
 * reply whose schema's type is a type parameter. Each answer is still checked against the kind's
 * full schema (plugins/route-schemas.ts).
 */
export function projectDefinitionRoutes<Create extends z.ZodTypeAny, Patch extends z.ZodTypeAny, State, Command>(
  deps: ApiDeps,
  kind: DefinitionKind<DefinitionRow, State, Command>,
  input: DefinitionInput<Create, Patch, Command>,
): FastifyPluginAsyncZod {
  const writes = definitionWrites(deps, kind);
  const tags = [TAGS[kind.plural]];

  return async (app) => {
    app.get(
      "/",
      {
        schema: { summary: `List a project's ${kind.noun} definitions`, tags, params: projectParams, response: { 200: listOf(kind) } },
        config: { access: team(kind.read) },
      },
      async (request) => {
        await accessibleProject(deps, request.caller, request.params.projectId, kind.read);
        return { [kind.plural]: [...(await kind.ofProject(deps.pool, request.params.projectId))] };
      },
    );

    app.post(
      "/",
      {
        schema: {
          summary: input.create.summary,
          description: input.create.description,
          tags,
          params: projectParams,
          body: input.create.body,
          response: { 201: kind.body, 409: errorBody },
          examples: input.create.examples,
        },
        config: { access: team(kind.write) },
      },
      async (request, reply) => {
        const { projectId } = request.params;
        const command = input.create.command(projectId, request.body);
        await writes.decide(request.caller, projectId, command);
        return reply.code(201).send(await writes.present(projectId, command.slug));
      },
    );

    app.get(
      "/:slug",
      { schema: { summary: `Get a ${kind.noun} definition by slug`, tags, params: definitionParams, response: { 200: kind.body } }, config: { access: team(kind.read) } },
      async (request) => {
        await accessibleProject(deps, request.caller, request.params.projectId, kind.read);
        return writes.present(request.params.projectId, request.params.slug);
      },
    );

    app.patch(
      "/:slug",
      {
        schema: {
          summary: `Change a ${kind.noun} definition`,
          description: input.update.description,
          tags,
          params: definitionParams,
          body: input.update.body,
          response: { 200: kind.body },
        },
        config: { access: team(kind.write) },
      },
      async (request) => {
        const { projectId, slug } = request.params;
        await writes.decide(request.caller, projectId, input.update.command({ projectId, slug }, request.body));
        return writes.present(projectId, slug);
      },
    );

    app.delete(
      "/:slug",
      {
        schema: { summary: `Delete a ${kind.noun} definition`, description: "Soft: the definition is hidden from every route.", tags, params: definitionParams, response: { 200: deletedBody } },
        config: { access: team(kind.write) },
      },
      async (request) => {
        const { projectId, slug } = request.params;
        await writes.decide(request.caller, projectId, kind.remove({ projectId, slug }));
        return { deleted: true as const };
      },
    );
  };
}

/** /v1/<plural>: definitions across the caller's projects (`team_id` required) and by id. */
export function teamDefinitionRoutes<State, Command>(deps: ApiDeps, kind: DefinitionKind<DefinitionRow, State, Command>): FastifyPluginAsyncZod {
  const tags = [TAGS[kind.plural]];
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: `List the ${kind.noun} definitions of a team's projects`,
          description: "Rows carry their `project_id`; a team the caller cannot see gives an empty list.",
          tags,
          querystring: z.object({ team_id: uuid }),
          response: { 200: listOf(kind) },
        },
        config: { access: team(kind.read) },
      },
      async (request) => {
        const teams = await visibleTeams(deps, request.caller, kind.read, request.query.team_id);
        return { [kind.plural]: [...(await kind.ofTeams(deps.pool, teams))] };
      },
    );

    app.get(
      "/by-id/:id",
      {
        schema: { summary: `Get a ${kind.noun} definition by id`, tags, params: idParams, response: { 200: kind.body } },
        config: { access: team(kind.read) },
      },
      async (request) => {
        const found = await kind.byId(deps.pool, request.params.id);
        if (!found) throw notFound(kind.noun);
        await authorize(deps, request.caller, found.teamId, kind.read, kind.noun);
        return found.definition;
      },
    );
  };
}
