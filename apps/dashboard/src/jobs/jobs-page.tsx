import { useSession } from "../session/session.tsx";
import { Empty, Loaded } from "../ui/states.tsx";
import { Pager, useListParams } from "../users/paging.tsx";
import { useProjectChoice } from "../ui/project-picker.tsx";
import { CancelRun } from "./cancel-run.tsx";
import { JOB_STATUSES, JOB_TYPES, statusLabel, typeLabel, type JobRun } from "./job-types.ts";
import { useJobRuns, type JobsView } from "./queries.ts";
import { RunProgress } from "./run-progress.tsx";
import "../users/list-table.css";
import "./jobs.css";
import { When } from "../ui/format.tsx";


function jobsViewOf(params: URLSearchParams): JobsView {
  return {
    jobType: JOB_TYPES.find((type) => type.value === params.get("type"))?.value,
    status: JOB_STATUSES.find((status) => status.value === params.get("status"))?.value,
    projectId: params.get("project") ?? "",
    cursor: params.get("cursor") ?? undefined,
  };
}

/** Who started a run, in words: the signed-in user is "you". */
function starter(triggeredBy: string, myId: string): string {
  if (triggeredBy === `manual:user:${myId}`) return "You";
  if (triggeredBy.startsWith("manual:user:")) return "A team member";
  if (triggeredBy.startsWith("manual:api_key:")) return "An API key";
  return triggeredBy === "schedule" ? "Schedule" : triggeredBy;
}

/** What a finished run produced: its error, or its result's figures on one line. */
function Outcome({ run }: { run: JobRun }) {
  if (run.error) return <span className="run-error">{run.error}</span>;
  if (!run.result) return null;
  const figures = Object.entries(run.result).map(([key, value]) => `${key.replace(/_/g, " ")}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
  return <span className="muted">{figures.join(" · ")}</span>;
}

function RunRow({ run, projectName, myId }: { run: JobRun; projectName: string | undefined; myId: string }) {
  return (
    <tr>
      <th scope="row" data-label="Job">
        {typeLabel(run.job_type)}
        <span className="muted run-project">{projectName ?? "Unknown project"}</span>
      </th>
      <td data-label="Status">
        <span className={`run-status run-${run.status}`}>{statusLabel(run.status)}</span>
      </td>
      <td data-label="Progress">
        <RunProgress run={run} />
        <Outcome run={run} />
      </td>
      <td data-label="Started by">{starter(run.triggered_by, myId)}</td>
      <td data-label="Created">
        <When at={run.created_at} />
      </td>
      <td data-label="Finished">{run.completed_at ? <When at={run.completed_at} /> : "–"}</td>
      <td className="run-actions">
        <CancelRun run={run} />
      </td>
    </tr>
  );
}

/**
 * The team's job runs, newest first, with type, status and project filters and the page in the
 * URL. While any run shown is pending or running, the list is asked for every two seconds.
 */
export function JobsPage() {
  const { team, user } = useSession();
  const { projects } = useProjectChoice();
  const [params, change] = useListParams();
  const view = jobsViewOf(params);
  const runs = useJobRuns(view);
  const projectName = (id: string | null) => projects.data?.projects.find((project) => project.id === id)?.name;
  const filtered = view.jobType !== undefined || view.status !== undefined || view.projectId !== "";

  return (
    <section aria-labelledby="page-title" className="jobs">
      <div className="page-head">
        <h1 id="page-title">Jobs</h1>
        <div className="controls">
          <label className="field">
            Type
            <select value={view.jobType ?? ""} onChange={(event) => change({ type: event.target.value })}>
              <option value="">All types</option>
              {JOB_TYPES.map((type) => (
                <option key={type.value} value={type.value}>
                  {type.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            Status
            <select value={view.status ?? ""} onChange={(event) => change({ status: event.target.value })}>
              <option value="">Any status</option>
              {JOB_STATUSES.map((status) => (
                <option key={status.value} value={status.value}>
                  {status.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            Project
            <select value={view.projectId} onChange={(event) => change({ project: event.target.value })}>
              <option value="">All projects</option>
              {(projects.data?.projects ?? []).map((project) => (
                <option key={project.id} value={project.id}>
                  {project.name}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      <Loaded query={runs} label="Loading job runs">
        {(answer) =>
          answer.job_runs.length === 0 ? (
            <Empty>
              {filtered ? (
                "No runs match these filters."
              ) : (
                <>
                  {team.name} has no job runs yet. Scheduled syncs show up here, and so do runs started with <code>POST /v1/teams/…/jobs/trigger</code>.
                </>
              )}
            </Empty>
          ) : (
            <>
              <div className="card table-card" aria-busy={runs.isPlaceholderData}>
                <table className="list-table">
                  <caption className="sr-only">Job runs, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Job</th>
                      <th scope="col">Status</th>
                      <th scope="col">Progress</th>
                      <th scope="col">Started by</th>
                      <th scope="col">Created</th>
                      <th scope="col">Finished</th>
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {answer.job_runs.map((run) => (
                      <RunRow key={run.id} run={run} projectName={projectName(run.project_id)} myId={user.id} />
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager params={params} next={answer.has_more ? answer.cursor : null} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
