import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { Empty, Loaded } from "../ui/states.tsx";
import { ALERT_FREQUENCY_LABELS } from "./project-fields.ts";
import { NewProjectForm } from "./new-project-form.tsx";
import { keys } from "./queries.ts";

/** The team's projects with their effective settings; each name opens its editor. */
export function ProjectsTab() {
  const { team } = useSession();
  const projects = useQuery({ queryKey: keys.projects(team.id), queryFn: () => unwrap(api.GET("/v1/projects", { params: { query: { team_id: team.id } } })) });
  return (
    <div className="settings-columns">
      <section className="card" aria-labelledby="projects-title">
        <h2 id="projects-title">Projects</h2>
        <Loaded query={projects} label="Loading projects">
          {({ projects: list }) =>
            list.length === 0 ? (
              <Empty>{team.name} has no projects yet. Create the first one here; its apps and their keys come next.</Empty>
            ) : (
              <ul className="rows">
                {list.map((project) => (
                  <li key={project.id} className="row">
                    <span className="swatch" style={{ background: project.color }} aria-hidden="true" />
                    <div className="row-main">
                      <Link to={`/settings/projects/${project.id}`} className="row-title">
                        {project.name}
                      </Link>
                      <span className="muted">
                        <code>{project.slug}</code> · events {project.effective_retention_days_events} d, metrics {project.effective_retention_days_metrics} d, funnels{" "}
                        {project.effective_retention_days_funnels} d · alerts {ALERT_FREQUENCY_LABELS[project.effective_issue_alert_frequency]}
                      </span>
                    </div>
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
      <NewProjectForm />
    </div>
  );
}
