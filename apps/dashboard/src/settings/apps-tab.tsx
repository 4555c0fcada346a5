import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { AppCard } from "./app-card.tsx";
import { NewAppForm } from "./new-app-form.tsx";
import { useProjectDetail, useTeamKeys } from "./queries.ts";

/**
 * A project's apps (`?project=…`), each with its client keys. The project's apps and the team's
 * keys are asked for together; the keys are matched to their apps here.
 */
export function AppsTab() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const project = useProjectDetail(projectId);
  const teamKeys = useTeamKeys();

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId) return <Empty>{team.name} has no projects yet: create one in the Projects tab, then its apps here.</Empty>;

  return (
    <div className="stack">
      <div className="controls">
        <ProjectPicker choice={choice} />
      </div>
      <div className="settings-columns">
        <section className="stack" aria-labelledby="apps-title">
          <h2 id="apps-title">Apps</h2>
          <Loaded query={project} label="Loading apps">
            {({ apps }) =>
              apps.length === 0 ? (
                <Empty>No apps in this project yet. Each platform build (iOS, Android, web, a backend) is an app with its own client key.</Empty>
              ) : (
                apps.map((app) => <AppCard key={app.id} app={app} keys={teamKeys} />)
              )
            }
          </Loaded>
        </section>
        {/* Keyed by project: a secret shown for one project's new app does not stay on screen for the next. */}
        <NewAppForm key={projectId} projectId={projectId} />
      </div>
    </div>
  );
}
