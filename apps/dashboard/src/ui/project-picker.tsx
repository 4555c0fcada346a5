import { useCallback } from "react";
import { useSearchParams } from "react-router";
import type { Answer } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { useChangeSearchParams } from "./search-params.ts";
import { useTeamProjects } from "./team-queries.ts";

export type Project = Answer<"/v1/projects">["projects"][number];

/** Replaces one search parameter and keeps the rest: every page keeps its view in the URL. */
export function useSearchParam(name: string): [string | null, (value: string | null) => void] {
  const [params] = useSearchParams();
  const change = useChangeSearchParams();
  const set = useCallback(
    (value: string | null) =>
      change((next) => {
        if (value === null || value === "") next.delete(name);
        else next.set(name, value);
      }),
    [name, change],
  );
  return [params.get(name), set];
}

/**
 * The project a page shows: `?project=…` in the URL (or `?project_id=…`, as notification mails
 * link), else the team's first. With a project in the URL, its data is asked for at once,
 * alongside the project list rather than after it.
 */
export function useProjectChoice() {
  const { team } = useSession();
  const projects = useTeamProjects(team.id);
  const [chosen, choose] = useSearchParam("project");
  const [linked] = useSearchParam("project_id");
  const projectId = chosen ?? linked ?? projects.data?.projects[0]?.id;
  const project = projects.data?.projects.find((candidate) => candidate.id === projectId);
  return { projects, projectId, project, choose };
}

/** The project select of a page's controls; a project id from a shared link that is not listed still shows. */
export function ProjectPicker({ choice }: { choice: ReturnType<typeof useProjectChoice> }) {
  const { projects, projectId, choose } = choice;
  return (
    <label className="project">
      Project
      <select value={projectId} onChange={(event) => choose(event.target.value)}>
        {(projects.data?.projects ?? []).map((project) => (
          <option key={project.id} value={project.id}>
            {project.name}
          </option>
        ))}
        {!projects.data?.projects.some((project) => project.id === projectId) && <option value={projectId}>{projects.isPending ? "Loading…" : "Unknown project"}</option>}
      </select>
    </label>
  );
}
