import { describe, expect, it } from "vitest";
import { createProject, updateProject } from "./decide.ts";
import { PALETTE, pickColor } from "./settings.ts";

const input = { projectId: "p-new", name: "Web", slug: "web", retention_days_events: null, retention_days_metrics: 30, retention_days_funnels: null };

describe("createProject", () => {
  it("rejects the slug of an active project as a conflict", () => {
    const state = { teamId: "t", projects: [{ id: "p1", slug: "web", color: PALETTE[0], deleted: false }] };
    expect(() => createProject(state, input)).toThrow(expect.objectContaining({ code: "conflict" }));
  });

  it("replaces a soft-deleted project with the same slug and takes the first unused colour", () => {
    const state = {
      teamId: "t",
      projects: [
        { id: "old", slug: "web", color: PALETTE[1], deleted: true },
        { id: "p2", slug: "api", color: PALETTE[0], deleted: false },
      ],
    };
    const [event] = createProject(state, input);
    expect(event).toMatchObject({ type: "ProjectCreated", replaces_project_ids: ["old"], color: PALETTE[1], retention_days_metrics: 30 });
  });
});

describe("pickColor", () => {
  it("falls back to the least used colour once every colour is taken", () => {
    const used = [...PALETTE, ...PALETTE.filter((color) => color !== PALETTE[5])];
    expect(pickColor(used)).toBe(PALETTE[5]);
  });
});

describe("updateProject", () => {
  const current = {
    id: "p",
    team_id: "t",
    name: "Web",
    color: PALETTE[0],
    retention_days_events: 30,
    retention_days_metrics: null,
    retention_days_funnels: null,
    attachment_user_quota_bytes: null,
    attachment_project_quota_bytes: null,
    issue_alert_frequency: null,
  };

  it("records before and after of changed fields only", () => {
    const [event] = updateProject(current, { name: "Web", retention_days_events: null, issue_alert_frequency: "hourly" });
    expect(event).toMatchObject({
      changes: { retention_days_events: { before: 30, after: null }, issue_alert_frequency: { before: null, after: "hourly" } },
    });
    expect(Object.keys((event as { changes: object }).changes)).toHaveLength(2);
  });

  it("emits nothing when no value changes", () => {
    expect(updateProject(current, { name: "Web" })).toEqual([]);
  });
});
