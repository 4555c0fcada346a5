import { Link, useLocation, useNavigate, useParams } from "react-router";
import { useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, Loaded, Loading } from "../ui/states.tsx";
import { MetricForm } from "./metric-form.tsx";
import { useMetricDefinition, useMetricWrites } from "./queries.ts";

/** /metrics/new: defines a metric in the chosen project and opens it. */
export function MetricCreate() {
  const { projects, projectId, project } = useProjectChoice();
  const { search } = useLocation();
  const navigate = useNavigate();
  const { create } = useMetricWrites(projectId ?? "");
  if (!projectId) return projects.isPending ? <Loading label="Loading projects" /> : <Empty>Choose a project on the metrics page first.</Empty>;
  return (
    <section aria-labelledby="page-title" className="metrics narrow">
      <p className="crumbs">
        <Link to={{ pathname: "/metrics", search }}>Metrics</Link>
      </p>
      <h1 id="page-title">New metric{project ? ` in ${project.name}` : ""}</h1>
      <MetricForm
        submitLabel="Create metric"
        pending={create.isPending}
        failure={create.error?.message}
        onSubmit={(slug, fields) => create.mutate({ slug, ...fields }, { onSuccess: () => void navigate({ pathname: `/metrics/${slug}`, search }) })}
        onCancel={() => void navigate({ pathname: "/metrics", search })}
      />
    </section>
  );
}

/** /metrics/:slug/edit: changes a definition's name, texts and schema, then goes back to it. */
export function MetricEdit() {
  const slug = useParams().slug ?? "";
  const { projectId } = useProjectChoice();
  const { search } = useLocation();
  const navigate = useNavigate();
  const definition = useMetricDefinition(projectId, slug);
  const { update } = useMetricWrites(projectId ?? "");
  const back = () => void navigate({ pathname: `/metrics/${slug}`, search });
  return (
    <section aria-labelledby="page-title" className="metrics narrow">
      <p className="crumbs">
        <Link to={{ pathname: "/metrics", search }}>Metrics</Link> / <Link to={{ pathname: `/metrics/${slug}`, search }}>{slug}</Link>
      </p>
      <h1 id="page-title">Edit metric</h1>
      <Loaded query={definition} label="Loading the metric">
        {(metric) => (
          <MetricForm
            initial={metric}
            submitLabel="Save changes"
            pending={update.isPending}
            failure={update.error?.message}
            onSubmit={(_, fields) => update.mutate({ slug, fields }, { onSuccess: back })}
            onCancel={back}
          />
        )}
      </Loaded>
    </section>
  );
}
