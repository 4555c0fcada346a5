import type { DomainEvent } from "../events.ts";
import { changesOf } from "../shared/changes.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, notFound } from "../shared/errors.ts";
import { pickColor, type UpdatableField } from "./settings.ts";

export type ProjectValues = Record<UpdatableField, unknown>;

/** A project as decisions need it: soft-deleted ones stay, their slugs decide re-creation. */
export type ProjectSummary = { id: string; slug: string; deleted: boolean; values: ProjectValues };

/** The projects of one team, all of them. */
export type TeamProjects = { teamId: string; projects: ProjectSummary[] };

export type NewProject = {
  projectId: string;
  name: string;
  slug: string;
  retention_days_events: number | null;
  retention_days_metrics: number | null;
  retention_days_funnels: number | null;
};

export type ProjectCommand =
  | ({ type: "CreateProject" } & NewProject)
  | { type: "UpdateProject"; projectId: string; patch: Partial<ProjectValues> }
  | { type: "DeleteProject"; projectId: string };

/** A conflict while an active project has the slug; a soft-deleted one with the slug is replaced. */
function create(state: TeamProjects, input: NewProject): DomainEvent[] {
  const sameSlug = state.projects.filter((project) => project.slug === input.slug);
  if (sameSlug.some((project) => !project.deleted)) throw conflict("a project with this slug already exists in the team");
  const activeColors = state.projects.filter((project) => !project.deleted).map((project) => String(project.values.color));
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

function activeProject(state: TeamProjects, projectId: string): ProjectSummary {
  const project = state.projects.find((candidate) => candidate.id === projectId && !candidate.deleted);
  if (!project) throw notFound("project");
  return project;
}

function decide(state: TeamProjects, command: ProjectCommand): DomainEvent[] {
  switch (command.type) {
    case "CreateProject":
      return create(state, command);
    case "UpdateProject": {
      // Only the fields whose value changes are recorded; nothing changes, no fact.
      const changes = changesOf(activeProject(state, command.projectId).values, command.patch);
      if (Object.keys(changes).length === 0) return [];
      return [{ type: "ProjectUpdated", v: 1, project_id: command.projectId, team_id: state.teamId, changes }];
    }
    case "DeleteProject": {
      const project = activeProject(state, command.projectId);
      return [{ type: "ProjectDeleted", v: 1, project_id: project.id, team_id: state.teamId, slug: project.slug }];
    }
  }
}

function evolve(state: TeamProjects, fact: DomainEvent): TeamProjects {
  switch (fact.type) {
    case "TeamCreated":
      return { teamId: fact.team_id, projects: [] };
    case "ProjectCreated": {
      const values: ProjectValues = {
        name: fact.name,
        color: fact.color,
        retention_days_events: fact.retention_days_events,
        retention_days_metrics: fact.retention_days_metrics,
        retention_days_funnels: fact.retention_days_funnels,
        attachment_user_quota_bytes: null,
        attachment_project_quota_bytes: null,
        issue_alert_frequency: null,
      };
      const kept = state.projects.filter((project) => !fact.replaces_project_ids.includes(project.id));
      return { ...state, projects: [...kept, { id: fact.project_id, slug: fact.slug, deleted: false, values }] };
    }
    case "ProjectUpdated":
      return {
        ...state,
        projects: state.projects.map((project) => {
          if (project.id !== fact.project_id) return project;
          const values = { ...project.values };
          for (const [field, change] of Object.entries(fact.changes) as [UpdatableField, { after: unknown }][]) values[field] = change.after;
          return { ...project, values };
        }),
      };
    case "ProjectDeleted":
      return { ...state, projects: state.projects.map((project) => (project.id === fact.project_id ? { ...project, deleted: true } : project)) };
    default:
      return state;
  }
}

/** A team's projects: slugs unique among active ones, colours spread over the palette, soft deletion. */
export const projectsDecider: Decider<TeamProjects, ProjectCommand, DomainEvent> = {
  initialState: { teamId: "", projects: [] },
  decide,
  evolve,
};
