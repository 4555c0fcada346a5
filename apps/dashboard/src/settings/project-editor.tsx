import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, unwrap, type Answer } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { Loaded } from "../ui/states.tsx";
import { ConfirmButton } from "./confirm-button.tsx";
import { FormError } from "./form-error.tsx";
import { formatDate, formatMib, MIB } from "./format.ts";
import { ALERT_FREQUENCY_LABELS, type AlertFrequency } from "./project-fields.ts";
import { keys, useProjectDetail, useRefresh, type ProjectDetail, type RequestBody } from "./queries.ts";

type ProjectList = Answer<"/v1/projects">;
type Patch = RequestBody<"/v1/projects/{id}", "patch">;

/** The form's fields as typed: an empty number field means "the default" (null to the API). */
type Draft = {
  name: string;
  color: string;
  retention_days_events: string;
  retention_days_metrics: string;
  retention_days_funnels: string;
  attachment_user_quota_mib: string;
  attachment_project_quota_mib: string;
  issue_alert_frequency: AlertFrequency | "";
};

const text = (value: number | null) => (value === null ? "" : String(value));
const number = (value: string) => (value.trim() === "" ? null : Number(value));

function draftOf(project: ProjectDetail): Draft {
  return {
    name: project.name,
    color: project.color.toLowerCase(),
    retention_days_events: text(project.retention_days_events),
    retention_days_metrics: text(project.retention_days_metrics),
    retention_days_funnels: text(project.retention_days_funnels),
    attachment_user_quota_mib: text(project.attachment_user_quota_bytes === null ? null : project.attachment_user_quota_bytes / MIB),
    attachment_project_quota_mib: text(project.attachment_project_quota_bytes === null ? null : project.attachment_project_quota_bytes / MIB),
    issue_alert_frequency: project.issue_alert_frequency ?? "",
  };
}

/** Only what changed goes to the API, so the audit log records just that. */
function patchOf(project: ProjectDetail, draft: Draft): Patch {
  const before = draftOf(project);
  const patch: Patch = {};
  if (draft.name.trim() !== before.name) patch.name = draft.name.trim();
  if (draft.color !== before.color) patch.color = draft.color.toUpperCase();
  for (const field of ["retention_days_events", "retention_days_metrics", "retention_days_funnels"] as const) {
    if (draft[field] !== before[field]) patch[field] = number(draft[field]);
  }
  if (draft.attachment_user_quota_mib !== before.attachment_user_quota_mib) {
    const mib = number(draft.attachment_user_quota_mib);
    patch.attachment_user_quota_bytes = mib === null ? null : Math.round(mib * MIB);
  }
  if (draft.attachment_project_quota_mib !== before.attachment_project_quota_mib) {
    const mib = number(draft.attachment_project_quota_mib);
    patch.attachment_project_quota_bytes = mib === null ? null : Math.round(mib * MIB);
  }
  if (draft.issue_alert_frequency !== before.issue_alert_frequency) patch.issue_alert_frequency = draft.issue_alert_frequency === "" ? null : draft.issue_alert_frequency;
  return patch;
}

/** /settings/projects/:projectId: one project's name, colour, retention, quotas and alert frequency. */
export function ProjectEditor() {
  const { projectId = "" } = useParams();
  const project = useProjectDetail(projectId);
  return (
    <div className="stack">
      <Link to="/settings/projects">← All projects</Link>
      <Loaded query={project} label="Loading the project">
        {(loaded) => <ProjectForm key={loaded.id} project={loaded} />}
      </Loaded>
    </div>
  );
}

function ProjectForm({ project }: { project: ProjectDetail }) {
  const { team } = useSession();
  const queryClient = useQueryClient();
  const refresh = useRefresh();
  const navigate = useNavigate();
  const [draft, setDraft] = useState(() => draftOf(project));
  const patch = patchOf(project, draft);
  const changed = Object.keys(patch).length > 0;
  const set = (field: keyof Draft) => (event: { target: { value: string } }) => setDraft((current) => ({ ...current, [field]: event.target.value }));

  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH("/v1/projects/{id}", { params: { path: { id: project.id } }, body: patch })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(keys.project(project.id), { ...saved, apps: project.apps });
      await refresh(keys.projects(team.id));
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE("/v1/projects/{id}", { params: { path: { id: project.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: keys.project(project.id) });
      // The list is not on screen, so it is not fetched again before it shows: it must not show the project meanwhile.
      queryClient.setQueryData<ProjectList>(keys.projects(team.id), (list) => list && { projects: list.projects.filter((listed) => listed.id !== project.id) });
      await refresh(keys.projects(team.id), keys.apiKeys(team.id), keys.apps(team.id));
      void navigate("/settings/projects");
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <>
      <form className="card stack" onSubmit={submit} aria-labelledby="project-title">
        <h2 id="project-title">
          <span className="swatch" style={{ background: project.color }} aria-hidden="true" /> {project.name}
        </h2>
        <p className="muted">
          Slug <code>{project.slug}</code> · created {formatDate(project.created_at)} · {project.apps.length} {project.apps.length === 1 ? "app" : "apps"}
        </p>
        <div className="fields">
          <label>
            Name
            <input required maxLength={100} value={draft.name} onChange={set("name")} />
          </label>
          <label>
            Colour
            <input type="color" value={draft.color} onChange={set("color")} />
          </label>
        </div>

        <fieldset>
          <legend>Retention in days (empty for the default)</legend>
          <div className="fields">
            <label>
              Events
              <input type="number" min={1} max={36500} inputMode="numeric" placeholder={`default ${project.effective_retention_days_events}`} value={draft.retention_days_events} onChange={set("retention_days_events")} />
            </label>
            <label>
              Metric events
              <input type="number" min={1} max={36500} inputMode="numeric" placeholder="default" value={draft.retention_days_metrics} onChange={set("retention_days_metrics")} />
            </label>
            <label>
              Funnel events
              <input type="number" min={1} max={36500} inputMode="numeric" placeholder="default" value={draft.retention_days_funnels} onChange={set("retention_days_funnels")} />
            </label>
          </div>
          <p className="muted">
            Now kept: events {project.effective_retention_days_events} days, metric events {project.effective_retention_days_metrics} days, funnel events{" "}
            {project.effective_retention_days_funnels} days.
          </p>
        </fieldset>

        <fieldset>
          <legend>Attachment quotas in MB (empty for the default)</legend>
          <div className="fields">
            <label>
              Per user
              <input type="number" min={0} step="any" inputMode="decimal" placeholder="default" value={draft.attachment_user_quota_mib} onChange={set("attachment_user_quota_mib")} />
            </label>
            <label>
              Per project
              <input type="number" min={0} step="any" inputMode="decimal" placeholder="default" value={draft.attachment_project_quota_mib} onChange={set("attachment_project_quota_mib")} />
            </label>
          </div>
          <p className="muted">
            Now: {formatMib(project.effective_attachment_user_quota_bytes)} per user, {formatMib(project.effective_attachment_project_quota_bytes)} per project.
          </p>
        </fieldset>

        <label className="narrow">
          Issue alerts
          <select value={draft.issue_alert_frequency} onChange={set("issue_alert_frequency")}>
            <option value="">Default (daily)</option>
            {(Object.keys(ALERT_FREQUENCY_LABELS) as AlertFrequency[]).map((frequency) => (
              <option key={frequency} value={frequency}>
                {ALERT_FREQUENCY_LABELS[frequency][0]!.toUpperCase() + ALERT_FREQUENCY_LABELS[frequency].slice(1)}
              </option>
            ))}
          </select>
        </label>

        <FormError error={save.error} />
        <div className="actions">
          <button type="submit" disabled={!changed || save.isPending}>
            {save.isPending ? "Saving…" : "Save changes"}
          </button>
          {changed ? (
            <button type="button" className="secondary" onClick={() => setDraft(draftOf(project))}>
              Discard
            </button>
          ) : (
            save.isSuccess && (
              <span className="muted" role="status">
                Saved.
              </span>
            )
          )}
        </div>
      </form>

      <section className="card stack danger-zone" aria-labelledby="delete-project-title">
        <h2 id="delete-project-title">Delete this project</h2>
        <p className="muted">Its apps, their keys, and its metric and funnel definitions go with it.</p>
        <FormError error={remove.error} />
        <div className="actions">
          <ConfirmButton
            label="Delete project"
            question={`Delete ${project.name} and everything in it?`}
            confirmLabel="Yes, delete it"
            pending={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      </section>
    </>
  );
}
