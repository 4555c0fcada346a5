import { Link } from "react-router";
import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice } from "../ui/project-picker.tsx";
import { Segmented } from "../ui/segmented.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { Pager, useListParams } from "../users/paging.tsx";
import { useFeedbackList, type InboxView } from "./queries.ts";
import { STATUSES, statusLabel, statusOf, type Feedback, type FeedbackStatus } from "./statuses.ts";
import { useTeamApps } from "../ui/team-queries.ts";
import { When } from "../ui/format.tsx";
import { dataModeOf } from "../overview/window.ts";
import { DataModeSwitch } from "../overview/controls.tsx";

const STATUS_FILTER: { value: FeedbackStatus | "any"; label: string }[] = [{ value: "any", label: "All" }, ...STATUSES];
const PREVIEW = 160;

function inboxViewOf(params: URLSearchParams): InboxView {
  return {
    status: statusOf(params.get("status")),
    appId: params.get("app") ?? "",
    dataMode: dataModeOf(params.get("mode")),
    cursor: params.get("cursor") ?? undefined,
  };
}

const preview = (message: string) => (message.length > PREVIEW ? `${message.slice(0, PREVIEW - 1)}…` : message);
const senderOf = (feedback: Feedback) => feedback.submitter_name ?? feedback.submitter_email ?? feedback.user_id ?? "Anonymous";

function FeedbackRow({ feedback, appName }: { feedback: Feedback; appName: string | undefined }) {
  return (
    <tr>
      <th scope="row" data-label="Message" className="feedback-message">
        <Link to={`/feedback/${feedback.id}?project=${feedback.project_id}`}>{preview(feedback.message)}</Link>
      </th>
      <td data-label="From">{senderOf(feedback)}</td>
      <td data-label="App">
        {appName ?? "–"}
        {feedback.app_version && <span className="muted"> {feedback.app_version}</span>}
      </td>
      <td data-label="Status">
        <span className={`status status-${feedback.status}`}>{statusLabel(feedback.status)}</span>
      </td>
      <td data-label="Comments" className="num">
        {feedback.comment_count}
      </td>
      <td data-label="Received">
        <When at={feedback.created_at} />
      </td>
    </tr>
  );
}

/** A project's feedback, newest first; project, status, app, data mode and page are in the URL. */
export function FeedbackInbox() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const [params, change] = useListParams();
  const view = inboxViewOf(params);
  const list = useFeedbackList(projectId, view);
  const apps = useTeamApps(team.id);
  const projectApps = (apps.data?.apps ?? []).filter((app) => app.project_id === projectId);
  const appName = (id: string) => apps.data?.apps.find((app) => app.id === id)?.name;

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId)
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Feedback</h1>
        <Empty>{team.name} has no projects yet; feedback sent from an app's feedback form shows up here.</Empty>
      </section>
    );

  return (
    <section aria-labelledby="page-title" className="feedback">
      <div className="page-head">
        <h1 id="page-title">Feedback</h1>
        <div className="controls">
          <ProjectPicker choice={{ ...choice, choose: (id) => change({ project: id, app: null }) }} />
          <label className="field">
            App
            <select value={view.appId} onChange={(event) => change({ app: event.target.value })}>
              <option value="">All apps</option>
              {projectApps.map((app) => (
                <option key={app.id} value={app.id}>
                  {app.name}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      <div className="controls filter-row">
        <Segmented legend="Status" name="status" options={STATUS_FILTER} value={view.status ?? "any"} onChange={(status) => change({ status: status === "any" ? null : status })} />
        <DataModeSwitch value={view.dataMode} onChange={(mode) => change({ mode: mode === "production" ? null : mode })} />
      </div>
      <Loaded query={list} label="Loading feedback">
        {(answer) =>
          answer.feedback.length === 0 ? (
            <Empty>{view.status || view.appId ? "No feedback matches these filters." : "No feedback in this project yet. Apps send it with POST /v1/feedback."}</Empty>
          ) : (
            <>
              <div className="card table-card" aria-busy={list.isPlaceholderData}>
                <table className="list-table">
                  <caption className="sr-only">Feedback, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Message</th>
                      <th scope="col">From</th>
                      <th scope="col">App</th>
                      <th scope="col">Status</th>
                      <th scope="col" className="num">
                        Comments
                      </th>
                      <th scope="col">Received</th>
                    </tr>
                  </thead>
                  <tbody>
                    {answer.feedback.map((feedback) => (
                      <FeedbackRow key={feedback.id} feedback={feedback} appName={appName(feedback.app_id)} />
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
