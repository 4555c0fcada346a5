import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { projectsDecider } from "./decider.ts";
import { PALETTE, pickColor } from "./settings.ts";

const teamCreated: DomainEvent = { type: "TeamCreated", v: 1, team_id: "t", name: "Team", slug: "team", created_by: "u", for_new_user: false };
const projectCreated = (id: string, slug: string, color: string, fields: Partial<Extract<DomainEvent, { type: "ProjectCreated" }>> = {}): DomainEvent => ({
  type: "ProjectCreated",
  v: 1,
  project_id: id,
  team_id: "t",
  name: slug,
  slug,
  color,
  retention_days_events: 30,
  retention_days_metrics: null,
  retention_days_funnels: null,
  replaces_project_ids: [],
  ...fields,
});
const projectDeleted = (id: string, slug: string): DomainEvent => ({ type: "ProjectDeleted", v: 1, project_id: id, team_id: "t", slug });
const create = { type: "CreateProject", projectId: "p-new", name: "Web", slug: "web", retention_days_events: null, retention_days_metrics: 30, retention_days_funnels: null } as const;
const projects = given(projectsDecider);

describe("projects decider", () => {
  it("refuses the slug of an active project as a conflict", () => {
    projects(teamCreated, projectCreated("p1", "web", PALETTE[0])).when(create).thenFails("conflict");
  });

  it("replaces a soft-deleted project with the same slug and takes the first colour no active project uses", () => {
    projects(teamCreated, projectCreated("old", "web", PALETTE[0]), projectCreated("p2", "api", PALETTE[1]), projectDeleted("old", "web"))
      .when(create)
      .then(projectCreated("p-new", "web", PALETTE[0], { name: "Web", retention_days_events: null, retention_days_metrics: 30, replaces_project_ids: ["old"] }));
  });

  it("records before and after of the changed fields only", () => {
    projects(teamCreated, projectCreated("p", "web", PALETTE[0]))
      .when({ type: "UpdateProject", projectId: "p", patch: { name: "web", retention_days_events: null, issue_alert_frequency: "hourly" } })
      .then({
        type: "ProjectUpdated",
        v: 1,
        project_id: "p",
        team_id: "t",
        changes: { retention_days_events: { before: 30, after: null }, issue_alert_frequency: { before: null, after: "hourly" } },
      });
  });

  it("records nothing when no value changes", () => {
    projects(teamCreated, projectCreated("p", "web", PALETTE[0])).when({ type: "UpdateProject", projectId: "p", patch: { name: "web" } }).then();
  });

  it("deletes an active project with its slug, and knows a deleted one no more", () => {
    projects(teamCreated, projectCreated("p", "web", PALETTE[0])).when({ type: "DeleteProject", projectId: "p" }).then(projectDeleted("p", "web"));
    projects(teamCreated, projectCreated("p", "web", PALETTE[0]), projectDeleted("p", "web")).when({ type: "DeleteProject", projectId: "p" }).thenFails("not_found");
    projects(teamCreated).when({ type: "UpdateProject", projectId: "p", patch: { name: "x" } }).thenFails("not_found");
  });
});

describe("pickColor", () => {
  it("falls back to the least used colour once every colour is taken", () => {
    const used = [...PALETTE, ...PALETTE.filter((color) => color !== PALETTE[5])];
    expect(pickColor(used)).toBe(PALETTE[5]);
  });
});
