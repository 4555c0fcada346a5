import { Link, useLocation } from "react-router";
import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { useFunnelDefinitions, type FunnelDefinition } from "./queries.ts";

/** The project's funnels, each with its steps in order; a funnel is run on its own page. */
export function FunnelList() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const definitions = useFunnelDefinitions(projectId);
  const { search } = useLocation();

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Funnels</h1>
        <Empty>
          <strong>{team.name}</strong> has no projects yet; funnels are defined per project.
        </Empty>
      </section>
    );
  }
  return (
    <section aria-labelledby="page-title" className="funnels">
      <div className="page-head">
        <h1 id="page-title">Funnels</h1>
        <div className="controls">
          <ProjectPicker choice={choice} />
          <Link className="button" to={{ pathname: "/funnels/new", search }}>
            New funnel
          </Link>
        </div>
      </div>
      <div className="card">
        <Loaded query={definitions} label="Loading funnels">
          {({ funnels }) =>
            funnels.length === 0 ? (
              <Empty>
                <p>No funnels in this project yet.</p>
                <p>
                  A funnel follows users through ordered steps: events named <code>step:&lt;step name&gt;</code>, or of a screen.{" "}
                  <Link to={{ pathname: "/funnels/new", search }}>Build the first one</Link>.
                </p>
              </Empty>
            ) : (
              <FunnelTable funnels={funnels} search={search} />
            )
          }
        </Loaded>
      </div>
    </section>
  );
}

function FunnelTable({ funnels, search }: { funnels: FunnelDefinition[]; search: string }) {
  const sorted = [...funnels].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <ul className="funnel-list">
      {sorted.map((funnel) => (
        <li key={funnel.id} data-funnel={funnel.slug}>
          <Link to={{ pathname: `/funnels/${funnel.slug}`, search }}>{funnel.name}</Link> <code>{funnel.slug}</code>
          {funnel.description && <div className="muted">{funnel.description}</div>}
          <ol className="step-names" aria-label={`Steps of ${funnel.name}`}>
            {funnel.steps.map((step, index) => (
              <li key={index}>{step.name}</li>
            ))}
          </ol>
        </li>
      ))}
    </ul>
  );
}
