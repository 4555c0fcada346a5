import pg from "pg";
import { ISSUE_STATUSES } from "../domain/issues/status.ts";
import { generationSchema } from "../projections/_runtime/projection.ts";
import { activeGeneration } from "./checkpoints.ts";
import { call } from "./fleet.ts";
import { measureQuery, type QueryFigures } from "./queries.ts";
import { round } from "./stats.ts";

/** Shares of the statuses, as a project that has triaged for a while has them: most issues new or resolved. */
const STATUS_SHARES: [string, number][] = [["new", 0.35], ["in_progress", 0.1], ["regressed", 0.05], ["resolved", 0.35], ["silenced", 0.07], ["snoozed", 0.08]];

export type IssueListFigures = {
  issues: number;
  load_seconds: number;
  count: QueryFigures;
  list: QueryFigures;
  list_by_status: Record<string, QueryFigures>;
};

/**
 * Writes `count` issues of one project straight into the active generation of the issues read
 * model, in one statement per table, with the columns the detector and the status facts fill:
 * statuses in the shares above, last seen spread over 90 days, one fingerprint each (the list reads
 * an issue's fingerprints), 5 % development data. Going through the stream would make the detector
 * open them one error at a time, minutes of work that is not what the target measures.
 */
async function loadIssues(db: pg.Pool, scope: { teamId: string; projectId: string; appIds: string[] }, count: number): Promise<void> {
  const schema = generationSchema("issues", await activeGeneration(db, "issues"));
  let bound = 0;
  const statusCase = STATUS_SHARES.map(([status, share]) => `when r < ${(bound += share).toFixed(2)} then '${status}'`).join(" ");
  await db.query(
    `with input as (
       select n, random() as r, now() - random() * interval '90 days' as seen from generate_series(1, $4::int) as n
     ),
     inserted as (
       insert into ${schema}.issues (id, project_id, team_id, app_id, is_dev, status, title, source_module, occurrence_count, unique_user_count,
                                     resolved_at_version, first_seen_sdk_version, last_seen_sdk_version, first_seen_at, last_seen_at, snoozed_at, created_at, updated_at)
       select gen_random_uuid(), $1::uuid, $2::uuid, ($3::uuid[])[1 + n % cardinality($3::uuid[])], n % 20 = 0,
              case ${statusCase} else 'snoozed' end,
              'Bench failure ' || n || ': ' || md5(n::text), 'Checkout.swift', 1 + (n % 500), 1 + (n % 120),
              case when r between 0.5 and 0.85 then '2.4.0' end, '1.7.0', '1.8.0', seen - interval '3 days', seen,
              case when r >= 0.92 then seen end, seen - interval '3 days', seen
         from input
       returning id, app_id, is_dev, project_id, created_at
     )
     insert into ${schema}.issue_fingerprints (app_id, is_dev, fingerprint, project_id, issue_id, created_at)
     select app_id, is_dev, md5(id::text), project_id, id, created_at from inserted`,
    [scope.projectId, scope.teamId, scope.appIds, count],
  );
  await db.query(`vacuum (analyze) ${schema}.issues, ${schema}.issue_fingerprints`);
}

/**
 * Issue counts and lists of a project with `count` (100,000) issues: a project of its own with
 * `apps` apps, its issues loaded directly, then GET /v1/issues/count and GET /v1/issues (50 a page,
 * every status and each one), sequential requests as a dashboard makes them.
 */
export async function runIssueListBench(input: { baseUrl: string; db: pg.Pool; token: string; teamId: string; slug: string; count: number; apps: number; requests: number; log: (line: string) => void }): Promise<IssueListFigures> {
  const project = await call(input.baseUrl, "POST", "/v1/projects", { team_id: input.teamId, name: "Issues", slug: input.slug }, input.token);
  const appIds: string[] = [];
  for (let index = 0; index < input.apps; index += 1) {
    const app = await call(input.baseUrl, "POST", "/v1/apps", { project_id: project.id, name: `Issues ${index}`, platform: "web", bundle_id: `issues${index}.example.com` }, input.token);
    appIds.push(app.id);
  }
  const started = performance.now();
  await loadIssues(input.db, { teamId: input.teamId, projectId: project.id, appIds }, input.count);
  const loadSeconds = round((performance.now() - started) / 1000);
  input.log(`issues: loaded ${input.count} issues in ${loadSeconds} s`);

  const time = async (path: string) => {
    await measureQuery(input.baseUrl, [input.token], () => path, 3);
    return measureQuery(input.baseUrl, [input.token], () => path, input.requests);
  };
  // The API must see what was loaded: the production issues (data_mode defaults to production).
  const counted = await call(input.baseUrl, "GET", `/v1/issues/count?project_id=${project.id}`, undefined, input.token);
  const total = ISSUE_STATUSES.reduce((sum, status) => sum + Number(counted[status] ?? 0), 0);
  input.log(`issues: the API counts ${total} production issues of the ${input.count} loaded (every 20th is development data)`);
  const count = await time(`/v1/issues/count?project_id=${project.id}`);
  const list = await time(`/v1/issues?project_id=${project.id}&limit=50`);
  const byStatus: Record<string, QueryFigures> = {};
  for (const status of ISSUE_STATUSES) byStatus[status] = await time(`/v1/issues?project_id=${project.id}&status=${status}&limit=50`);
  input.log(
    `issues: count p95 ${count.p95_ms} ms, list p95 ${list.p95_ms} ms, by status p95 ${Object.entries(byStatus).map(([status, figures]) => `${status} ${figures.p95_ms} ms`).join(", ")}`,
  );
  return { issues: input.count, load_seconds: loadSeconds, count, list, list_by_status: byStatus };
}
