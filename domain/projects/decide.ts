import { changesOf } from "../definitions/decide.ts";
import type { DomainEvent } from "../events.ts";
import { conflict } from "../shared/errors.ts";
import { pickColor, type UpdatableField } from "./settings.ts";

/** Every project of a team, soft-deleted ones included (their slugs decide re-creation). */
export type TeamProjects = {
  teamId: string;
  projects: { id: string; slug: string; color: string; deleted: boolean }[];
};

export type NewProject = {
  projectId: string;
  name: string;
  slug: string;
  retention_days_events: number | null;
  retention_days_metrics: number | null;
  retention_days_funnels: number | null;
};

/** 409 while an active project has the slug; a soft-deleted one with the slug is replaced. */
export function createProject(state: TeamProjects, input: NewProject): DomainEvent[] {
  const sameSlug = state.projects.filter((project) => project.slug === input.slug);
  if (sameSlug.some((project) => !project.deleted)) throw conflict("a project with this slug already exists in the team");
  const activeColors = state.projects.filter((project) => !project.deleted).map((project) => project.color);
  return [
    {
      type: "ProjectCreated",
      v: 1,
      project_id: input.projectId,
      team_id: state.teamId,
      name: input.name,
      slug: input.slug,
      color: pickColor(activeColors),
      retention_days_events: input.retention_days_events,
      retention_days_metrics: input.retention_days_metrics,
      retention_days_funnels: input.retention_days_funnels,
      replaces_project_ids: sameSlug.map((project) => project.id),
    },
  ];
}

export type ProjectValues = { id: string; team_id: string } & Record<UpdatableField, unknown>;

/** Records only the fields whose value changes; no event when nothing does. */
export function updateProject(current: ProjectValues, patch: Partial<Record<UpdatableField, unknown>>): DomainEvent[] {
  const changes = changesOf(current, patch);
  if (Object.keys(changes).length === 0) return [];
  return [{ type: "ProjectUpdated", v: 1, project_id: current.id, team_id: current.team_id, changes }];
}
