import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { funnelsDecider, metricsDecider, type FunnelValues, type MetricValues } from "./decider.ts";

const teamCreated: DomainEvent = { type: "TeamCreated", v: 1, team_id: "t", name: "Team", slug: "team", created_by: "u", for_new_user: false };
const projectDeleted = (projectId: string): DomainEvent => ({ type: "ProjectDeleted", v: 1, project_id: projectId, team_id: "t", slug: projectId });

const metricValues = (fields: Partial<MetricValues> = {}): MetricValues => ({
  name: "Checkout",
  description: null,
  documentation: null,
  schema_definition: { type: "object", properties: { step: { type: "string" } } },
  aggregation_rules: null,
  ...fields,
});
const metricDefined = (id: string, slug: string, fields: Partial<MetricValues> & { project?: string; restored?: boolean } = {}): DomainEvent => {
  const { project = "p", restored = false, ...values } = fields;
  return { type: "MetricDefined", v: 1, metric_id: id, team_id: "t", project_id: project, slug, ...metricValues(values), restored };
};
const metricDeleted = (id: string, slug: string): DomainEvent => ({ type: "MetricDeleted", v: 1, metric_id: id, team_id: "t", slug });
const defineMetric = (slug: string, fields: Partial<MetricValues> & { project?: string } = {}) => {
  const { project = "p", ...values } = fields;
  return { type: "DefineMetric", metricId: "m-new", projectId: project, slug, values: metricValues(values) } as const;
};

const steps = [
  { name: "Open", event_filter: { screen_name: "Home" } },
  { name: "Pay", event_filter: { step_name: "pay" } },
];
const funnelValues = (fields: Partial<FunnelValues> = {}): FunnelValues => ({ name: "Purchase", description: null, steps, ...fields });
const funnelCreated = (id: string, slug: string, project = "p"): DomainEvent => ({
  type: "FunnelCreated",
  v: 1,
  funnel_id: id,
  team_id: "t",
  project_id: project,
  slug,
  ...funnelValues(),
});
const funnelDeleted = (id: string, slug: string): DomainEvent => ({ type: "FunnelDeleted", v: 1, funnel_id: id, team_id: "t", slug });
const createFunnel = (slug: string, project = "p") => ({ type: "CreateFunnel", funnelId: "f-new", projectId: project, slug, values: funnelValues() }) as const;

const metrics = given(metricsDecider);
const funnels = given(funnelsDecider);

describe("metrics decider", () => {
  it("defines a metric under the command's id", () => {
    metrics(teamCreated).when(defineMetric("checkout")).then(metricDefined("m-new", "checkout"));
  });

  it("refuses the slug of an active metric of the project as a conflict, and takes it in another project", () => {
    metrics(teamCreated, metricDefined("m1", "checkout")).when(defineMetric("checkout")).thenFails("conflict");
    metrics(teamCreated, metricDefined("m1", "checkout", { project: "other" })).when(defineMetric("checkout")).then(metricDefined("m-new", "checkout"));
  });

  it("restores a soft-deleted metric with the slug under its old id, with the new values", () => {
    metrics(teamCreated, metricDefined("m1", "checkout", { description: "v1" }), metricDeleted("m1", "checkout"))
      .when(defineMetric("checkout", { name: "Checkout again" }))
      .then(metricDefined("m1", "checkout", { name: "Checkout again", restored: true }));
  });

  it("records before and after of the changed fields only, JSON values compared deeply", () => {
    metrics(teamCreated, metricDefined("m1", "checkout", { description: "v1" }))
      .when({
        type: "UpdateMetric",
        projectId: "p",
        slug: "checkout",
        // The same schema with its keys in another order is no change.
        patch: { name: "Checkout", description: "v2", schema_definition: { properties: { step: { type: "string" } }, type: "object" }, aggregation_rules: { p95: true } },
      })
      .then({
        type: "MetricUpdated",
        v: 1,
        metric_id: "m1",
        team_id: "t",
        changes: { description: { before: "v1", after: "v2" }, aggregation_rules: { before: null, after: { p95: true } } },
      });
  });

  it("records nothing when no value changes, also after an earlier update", () => {
    const updated: DomainEvent = { type: "MetricUpdated", v: 1, metric_id: "m1", team_id: "t", changes: { description: { before: null, after: "v2" } } };
    metrics(teamCreated, metricDefined("m1", "checkout"), updated).when({ type: "UpdateMetric", projectId: "p", slug: "checkout", patch: { description: "v2" } }).then();
  });

  it("deletes an active metric with its slug", () => {
    metrics(teamCreated, metricDefined("m1", "checkout")).when({ type: "DeleteMetric", projectId: "p", slug: "checkout" }).then(metricDeleted("m1", "checkout"));
  });

  it("knows no deleted, unknown or other project's metric", () => {
    const deleted = [teamCreated, metricDefined("m1", "checkout"), metricDeleted("m1", "checkout")];
    expect(metrics(...deleted).when({ type: "DeleteMetric", projectId: "p", slug: "checkout" }).thenFails("not_found").message).toBe("metric not found");
    metrics(...deleted).when({ type: "UpdateMetric", projectId: "p", slug: "checkout", patch: { name: "x" } }).thenFails("not_found");
    metrics(teamCreated, metricDefined("m1", "checkout", { project: "other" })).when({ type: "DeleteMetric", projectId: "p", slug: "checkout" }).thenFails("not_found");
  });

  it("takes a deleted project's metrics with it", () => {
    metrics(teamCreated, metricDefined("m1", "checkout"), projectDeleted("p")).when({ type: "DeleteMetric", projectId: "p", slug: "checkout" }).thenFails("not_found");
  });
});

describe("funnels decider", () => {
  it("creates a funnel under the command's id", () => {
    funnels(teamCreated).when(createFunnel("purchase")).then(funnelCreated("f-new", "purchase"));
  });

  it("refuses the slug of an active funnel of the project as a conflict, and takes it in another project", () => {
    funnels(teamCreated, funnelCreated("f1", "purchase")).when(createFunnel("purchase")).thenFails("conflict");
    funnels(teamCreated, funnelCreated("f1", "purchase", "other")).when(createFunnel("purchase")).then(funnelCreated("f-new", "purchase"));
  });

  it("creates a new funnel, not a restored one, under the slug of a soft-deleted funnel", () => {
    funnels(teamCreated, funnelCreated("f1", "purchase"), funnelDeleted("f1", "purchase")).when(createFunnel("purchase")).then(funnelCreated("f-new", "purchase"));
  });

  it("records before and after of the changed fields only", () => {
    funnels(teamCreated, funnelCreated("f1", "purchase"))
      .when({ type: "UpdateFunnel", projectId: "p", slug: "purchase", patch: { name: "Purchase", description: "paid", steps: [steps[1]!] } })
      .then({
        type: "FunnelUpdated",
        v: 1,
        funnel_id: "f1",
        team_id: "t",
        changes: { description: { before: null, after: "paid" }, steps: { before: steps, after: [steps[1]] } },
      });
  });

  it("records nothing when no value changes", () => {
    funnels(teamCreated, funnelCreated("f1", "purchase")).when({ type: "UpdateFunnel", projectId: "p", slug: "purchase", patch: { steps: structuredClone(steps) } }).then();
  });

  it("deletes an active funnel with its slug, and knows a deleted one no more", () => {
    funnels(teamCreated, funnelCreated("f1", "purchase")).when({ type: "DeleteFunnel", projectId: "p", slug: "purchase" }).then(funnelDeleted("f1", "purchase"));
    const deleted = [teamCreated, funnelCreated("f1", "purchase"), funnelDeleted("f1", "purchase")];
    expect(funnels(...deleted).when({ type: "DeleteFunnel", projectId: "p", slug: "purchase" }).thenFails("not_found").message).toBe("funnel not found");
    funnels(...deleted).when({ type: "UpdateFunnel", projectId: "p", slug: "purchase", patch: { name: "x" } }).thenFails("not_found");
    funnels(teamCreated, funnelCreated("f1", "purchase"), projectDeleted("p")).when({ type: "DeleteFunnel", projectId: "p", slug: "purchase" }).thenFails("not_found");
  });
});
