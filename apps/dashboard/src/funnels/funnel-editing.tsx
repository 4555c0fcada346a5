import { Link, useLocation, useNavigate, useParams } from "react-router";
import { useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, Loaded, Loading } from "../ui/states.tsx";
import { FunnelForm } from "./funnel-form.tsx";
import { useFunnelDefinition, useFunnelWrites } from "./queries.ts";

/** /funnels/new: defines a funnel in the chosen project and runs it. */
export function FunnelCreate() {
  const { projects, projectId, project } = useProjectChoice();
  const { search } = useLocation();
  const navigate = useNavigate();
  const { create } = useFunnelWrites(projectId ?? "");
  if (!projectId) return projects.isPending ? <Loading label="Loading projects" /> : <Empty>Choose a project on the funnels page first.</Empty>;
  return (
    <section aria-labelledby="page-title" className="funnels narrow">
      <p className="crumbs">
        <Link to={{ pathname: "/funnels", search }}>Funnels</Link>
      </p>
      <h1 id="page-title">New funnel{project ? ` in ${project.name}` : ""}</h1>
      <FunnelForm
        submitLabel="Create funnel"
        pending={create.isPending}
        failure={create.error?.message}
        onSubmit={(slug, fields) => create.mutate({ slug, ...fields }, { onSuccess: () => void navigate({ pathname: `/funnels/${slug}`, search }) })}
        onCancel={() => void navigate({ pathname: "/funnels", search })}
      />
    </section>
  );
}

/** /funnels/:slug/edit: changes a funnel's name, description and steps, then shows it again. */
export function FunnelEdit() {
  const slug = useParams().slug ?? "";
  const { projects, projectId } = useProjectChoice();
  const { search } = useLocation();
  const navigate = useNavigate();
  const definition = useFunnelDefinition(projectId, slug);
  const { update } = useFunnelWrites(projectId ?? "");
  const back = () => void navigate({ pathname: `/funnels/${slug}`, search });
  if (!projectId) return projects.isPending ? <Loading label="Loading projects" /> : <Empty>Choose a project on the funnels page first.</Empty>;
  return (
    <section aria-labelledby="page-title" className="funnels narrow">
      <p className="crumbs">
        <Link to={{ pathname: "/funnels", search }}>Funnels</Link> / <Link to={{ pathname: `/funnels/${slug}`, search }}>{slug}</Link>
      </p>
      <h1 id="page-title">Edit funnel</h1>
      <Loaded query={definition} label="Loading the funnel">
        {(funnel) => (
          <FunnelForm
            initial={funnel}
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
