import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { checkTrigger } from "../../../domain/jobs/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { activeProject } from "../../../projections/directory/catalog-queries.ts";
import { jobRunById, listJobRuns, toJobRun } from "../../../projections/jobs/queries.ts";
import { runJobCommand } from "../../commands/job-command.ts";
import { waitUntilVisible } from "../../commands/command-handler.ts";
import { actorOf, authorize, team, type Rule } from "../auth/access.ts";
import { triggeredByOf, type Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { page, parseBounds, parseKeysetCursor } from "../listing.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import { startJob } from "../start-job.ts";
import {
  conflictWithRun,
  exampleJobRun,
  exampleTriggered,
  jobRunEnvelope,
  jobRunPage,
  jobsQuery,
  jobTeamParams,
  runParams,
  triggerBody,
} from "../schemas/jobs.ts";

/** The team routes of the SPEC's Jobs table are for admins; a run's own routes for any member. */
const READ_TEAM_RUNS = team({ permission: "jobs:read", role: "admin" }, { teamParam: "teamId" });
const TRIGGER = team({ permission: "jobs:write", role: "admin" }, { teamParam: "teamId" });
const READ_RUN: Rule = { permission: "jobs:read", role: "member" };
const CANCEL_RUN: Rule = { permission: "jobs:write", role: "member" };

const tags = [TAGS.jobs];


/** `/v1/teams/:teamId/jobs…` (register with prefix /v1/teams). */
export function teamJobRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/:teamId/jobs/trigger",
      {
        schema: {
          summary: "Trigger a job run",
          description:
            "Starts a project-scoped job. One run of a type may be pending or running per project at a time; " +
            "the worker takes it within a second. With `notify`, the triggering user is emailed when it completes or fails.",
          tags,
          params: jobTeamParams,
          body: triggerBody,
          response: { 201: jobRunEnvelope, 400: errorBody, 404: errorBody, 409: conflictWithRun },
          examples: { 201: exampleTriggered },
        },
        config: { access: TRIGGER },
      },
      async (request, reply) => {
        const { teamId } = request.params;
        const { body, caller } = request;
        const by = triggeredByOf(caller);
        const projectId = body.project_id ?? null;
        const jobType = checkTrigger(body.job_type, projectId, by);
        if (projectId !== null && (await activeProject(deps.pool, projectId))?.team_id !== teamId) throw notFound("project");
        const runId = await startJob(deps, caller, { teamId, projectId, jobType, params: body.params, notify: body.notify });
        const run = await jobRunById(deps.pool, runId);
        if (!run) throw notFound("job run");
        return reply.code(201).send({ job_run: toJobRun(run) });
      },
    );

    app.get(
      "/:teamId/jobs",
      {
        schema: {
          summary: "List a team's job runs",
          description: "Runs of the team's projects, newest first. System runs (cleanups) belong to no team and are not listed.",
          tags,
          params: jobTeamParams,
          querystring: jobsQuery,
          response: { 200: jobRunPage },
          examples: { 200: { job_runs: [exampleJobRun], cursor: null, has_more: false } },
        },
        config: { access: READ_TEAM_RUNS },
      },
      async (request) => {
        const { query } = request;
        const rows = await listJobRuns(deps.pool, {
          teamId: request.params.teamId,
          jobType: query.job_type,
          status: query.status,
          projectId: query.project_id,
          ...parseBounds(query),
          after: parseKeysetCursor(query.cursor),
          limit: query.limit,
        });
        const result = page(rows, query.limit, (row) => `${row.created_at}|${row.id}`);
        return { job_runs: result.items.map(toJobRun), cursor: result.cursor, has_more: result.has_more };
      },
    );
  };
}

/** `/v1/jobs/:runId…`. */
export function jobRunRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** The run when the caller may apply `rule` to it; 404 for missing, system and foreign runs alike. */
  async function accessibleRun(caller: Principal, runId: string, rule: Rule) {
    const run = await jobRunById(deps.pool, runId);
    if (!run || run.team_id === null) throw notFound("job run");
    await authorize(deps, caller, run.team_id, rule, "job run");
    return run;
  }

  return async (app) => {
    app.get(
      "/:runId",
      {
        schema: {
          summary: "Get a job run",
          description: "Status, progress `{processed, total, message}`, result or error of one run.",
          tags,
          params: runParams,
          response: { 200: jobRunEnvelope },
          examples: { 200: { job_run: exampleJobRun } },
        },
        config: { access: team(READ_RUN) },
      },
      async (request) => ({ job_run: toJobRun(await accessibleRun(request.caller, request.params.runId, READ_RUN)) }),
    );

    app.post(
      "/:runId/cancel",
      {
        schema: {
          summary: "Cancel a job run",
          description:
            "Cooperative: the run is cancelled at once and its worker stops at its next step. " +
            "A pending run is cancelled before it starts; a finished run answers 400.",
          tags,
          params: runParams,
          response: { 200: z.object({ cancelled: z.literal(true) }), 400: errorBody },
          examples: { 200: { cancelled: true } },
        },
        config: { access: team(CANCEL_RUN) },
      },
      async (request) => {
        const run = await accessibleRun(request.caller, request.params.runId, CANCEL_RUN);
        const { seq } = await runJobCommand(
          deps.log,
          { projectId: run.project_id, jobType: run.job_type },
          { type: "CancelJob", runId: run.id, teamId: run.team_id },
          actorOf(request.caller),
        );
        if (seq !== null) await waitUntilVisible(deps, seq, ["jobs"]);
        return { cancelled: true as const };
      },
    );
  };
}
