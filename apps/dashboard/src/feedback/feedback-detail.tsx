import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { useSearchParam } from "../ui/project-picker.tsx";
import { Loaded } from "../ui/states.tsx";
import { userPath } from "../users/users-list.tsx";
import { Comments } from "./comments.tsx";
import { useFeedback, useFeedbackChanges, type FeedbackDetail } from "./queries.ts";
import { STATUSES, statusOf } from "./statuses.ts";
import { useSession } from "../session/session.tsx";
import { useTeamApps } from "../ui/team-queries.ts";
import { formatDateTime } from "../ui/format.tsx";


function StatusControl({ feedback, setStatus }: { feedback: FeedbackDetail; setStatus: ReturnType<typeof useFeedbackChanges>["setStatus"] }) {
  return (
    <div className="status-control">
      <label className="field">
        Status
        <select value={feedback.status} disabled={setStatus.isPending} onChange={(event) => {
            const status = statusOf(event.target.value);
            if (status) setStatus.mutate(status);
          }}>
          {STATUSES.map((status) => (
            <option key={status.value} value={status.value}>
              {status.label}
            </option>
          ))}
        </select>
      </label>
      <span role="status" className="muted">
        {setStatus.isPending ? "Saving…" : ""}
      </span>
      {setStatus.error && (
        <p className="state error" role="alert">
          Could not change the status: {setStatus.error.message}
        </p>
      )}
    </div>
  );
}

function Sender({ feedback }: { feedback: FeedbackDetail }) {
  const { apps } = useTeamApps(useSession().team.id).data ?? { apps: [] };
  const app = apps.find((candidate) => candidate.id === feedback.app_id);
  const facts: [string, ReactNode][] = [
    ["Name", feedback.submitter_name],
    ["Email", feedback.submitter_email && <a href={`mailto:${feedback.submitter_email}`}>{feedback.submitter_email}</a>],
    ["User", feedback.user_id && <Link to={userPath({ user_id: feedback.user_id }, feedback.project_id)}>{feedback.user_id}</Link>],
    ["App", app?.name],
    ["App version", feedback.app_version],
    ["Environment", feedback.environment],
    ["OS version", feedback.os_version],
    ["Device", feedback.device_model],
    ["SDK", feedback.sdk_name && `${feedback.sdk_name} ${feedback.sdk_version ?? ""}`.trim()],
    ["Build", feedback.is_dev ? "Development" : "Production"],
  ];
  return (
    <dl className="facts">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? "–"}</dd>
        </div>
      ))}
    </dl>
  );
}

function Detail({ feedback }: { feedback: FeedbackDetail }) {
  const { setStatus, comment } = useFeedbackChanges(feedback);
  return (
    <>
      <div className="page-head">
        <h1 id="page-title">Feedback</h1>
        <StatusControl feedback={feedback} setStatus={setStatus} />
      </div>
      <div className="feedback-panels">
        <div className="feedback-main">
          <section className="card" aria-labelledby="message-title">
            <h2 id="message-title">
              Message <span className="muted">received {formatDateTime(feedback.created_at)}</span>
            </h2>
            <p className="feedback-text">{feedback.message}</p>
          </section>
          <section className="card" aria-labelledby="comments-title">
            <h2 id="comments-title">Comments</h2>
            <Comments comments={feedback.comments} comment={comment} />
          </section>
        </div>
        <section className="card" aria-labelledby="sender-title">
          <h2 id="sender-title">Sent by</h2>
          <Sender feedback={feedback} />
        </section>
      </div>
    </>
  );
}

/** `/feedback/<id>`, with `?project=…` when the link knows it (the inbox's do, notification mails' do not). */
export function FeedbackDetailPage() {
  const id = useParams().feedbackId ?? "";
  const [project] = useSearchParam("project");
  const [linkedProject] = useSearchParam("project_id");
  const projectId = project ?? linkedProject ?? undefined;
  const feedback = useFeedback(projectId, id);
  const back = projectId ? `/feedback?project=${projectId}` : feedback.data ? `/feedback?project=${feedback.data.project_id}` : "/feedback";

  return (
    <section aria-labelledby="page-title" className="feedback feedback-detail">
      <p className="crumbs">
        <Link to={back}>← All feedback</Link>
      </p>
      <Loaded query={feedback} label="Loading the feedback">
        {(found) => <Detail feedback={found} />}
      </Loaded>
    </section>
  );
}
