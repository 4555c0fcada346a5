import { z } from "zod";

const change = z.object({ before: z.unknown(), after: z.unknown() });
const jsonObject = z.record(z.unknown());

const METRIC_FIELDS = ["name", "description", "documentation", "schema_definition", "aggregation_rules"] as const;
const FUNNEL_FIELDS = ["name", "description", "steps"] as const;

export const funnelStep = z.object({
  name: z.string(),
  event_filter: z.object({ step_name: z.string().optional(), screen_name: z.string().optional() }),
});
export type FunnelStep = z.infer<typeof funnelStep>;

/** Creates a metric, or restores the soft-deleted one with the same slug (same id, same history). */
export const metricDefined = z.object({
  type: z.literal("MetricDefined"),
  v: z.literal(1),
  metric_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  documentation: z.string().nullable(),
  schema_definition: jsonObject.nullable(),
  aggregation_rules: jsonObject.nullable(),
  restored: z.boolean(),
});

export const metricUpdated = z.object({
  type: z.literal("MetricUpdated"),
  v: z.literal(1),
  metric_id: z.string(),
  team_id: z.string(),
  changes: z.record(z.enum(METRIC_FIELDS), change),
});

export const metricDeleted = z.object({
  type: z.literal("MetricDeleted"),
  v: z.literal(1),
  metric_id: z.string(),
  team_id: z.string(),
  slug: z.string(),
});

export const funnelCreated = z.object({
  type: z.literal("FunnelCreated"),
  v: z.literal(1),
  funnel_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  steps: z.array(funnelStep),
});

export const funnelUpdated = z.object({
  type: z.literal("FunnelUpdated"),
  v: z.literal(1),
  funnel_id: z.string(),
  team_id: z.string(),
  changes: z.record(z.enum(FUNNEL_FIELDS), change),
});

export const funnelDeleted = z.object({
  type: z.literal("FunnelDeleted"),
  v: z.literal(1),
  funnel_id: z.string(),
  team_id: z.string(),
  slug: z.string(),
});

export const definitionEvents = [metricDefined, metricUpdated, metricDeleted, funnelCreated, funnelUpdated, funnelDeleted] as const;
