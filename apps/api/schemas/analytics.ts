import { z } from "zod";
import { FUNNEL_BREAKDOWNS, FUNNEL_MODES } from "../../../domain/funnels/analytics.ts";
import { METRIC_GROUP_BYS } from "../../../domain/metrics/aggregation.ts";
import { METRIC_PHASES } from "../../../domain/metrics/derive.ts";
import { timestamp } from "./common.ts";

/** A percentage with two decimals; null when there is nothing to divide by. */
const rate = z.number().nullable();
const count = z.number().int();
const ms = z.number().nullable();

/** A metric event (SPEC, Metric event). */
export const metricEventBody = z.object({
  id: z.string().uuid(),
  app_id: z.string().uuid(),
  session_id: z.string(),
  user_id: z.string().nullable(),
  api_key_id: z.string().uuid(),
  metric_slug: z.string(),
  phase: z.enum(METRIC_PHASES),
  tracking_id: z.string().nullable(),
  duration_ms: ms,
  error: z.string().nullable(),
  attributes: z.record(z.string()),
  environment: z.string(),
  os_version: z.string().nullable(),
  app_version: z.string().nullable(),
  device_model: z.string().nullable(),
  build_number: z.string().nullable(),
  is_dev: z.boolean(),
  client_event_id: z.string().nullable(),
  timestamp,
  received_at: timestamp,
});

/** A page of metric events, newest first. */
export const metricEventPage = z.object({
  events: z.array(metricEventBody),
  cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last"),
  has_more: z.boolean(),
});

/** One value of a metric query's `group_by`. */
const metricGroup = z.object({
  key: z.enum(METRIC_GROUP_BYS),
  value: z.string().nullable(),
  total_count: count,
  complete_count: count,
  fail_count: count,
  success_rate: rate,
  duration_avg_ms: ms,
});

/** The aggregation object of a metric query (SPEC, Metrics). */
export const metricAggregation = z.object({
  total_count: count,
  start_count: count,
  complete_count: count,
  fail_count: count,
  cancel_count: count,
  record_count: count,
  success_rate: rate.describe("complete / (complete + fail) * 100, two decimals"),
  duration_avg_ms: ms,
  duration_p50_ms: ms,
  duration_p95_ms: ms,
  duration_p99_ms: ms,
  unique_users: count,
  error_breakdown: z.array(z.object({ error: z.string(), count })).describe("The 20 most frequent errors of fail events"),
  groups: z.array(metricGroup).optional().describe("Only with group_by: at most 100, time groups ascending"),
  sample_rate: z.number().describe("1 when unique users and percentiles are exact; below 1 unique users are estimated from that share of users and percentiles come from duration digests (within 1 %)"),
});

export const metricQueryBody = z.object({ slug: z.string(), aggregation: metricAggregation });

/** A metric's outcomes over the window. */
export const metricStatBody = z.object({ slug: z.string(), complete_count: count, fail_count: count, success_rate: rate });

export const metricCompletionsBody = z.object({ count: count.describe("Complete-phase events"), failed: count.describe("Fail-phase events") });

const funnelStepFigures = z.object({
  step_index: count,
  step_name: z.string(),
  unique_users: count,
  percentage: z.number().describe("Of step 0's users"),
  drop_off_count: count,
  drop_off_percentage: z.number().describe("Of the previous step's users"),
});

/** The analytics object of a funnel query (SPEC, Funnels). */
export const funnelAnalyticsBody = z.object({
  funnel: z.string(),
  mode: z.enum(FUNNEL_MODES),
  total_users: count,
  steps: z.array(funnelStepFigures),
  breakdown: z
    .array(z.object({ key: z.enum(FUNNEL_BREAKDOWNS), value: z.string().nullable(), total_users: count, steps: z.array(funnelStepFigures) }))
    .optional()
    .describe("Only with group_by"),
});

export const funnelQueryBody = z.object({ slug: z.string(), analytics: funnelAnalyticsBody });

export const funnelCompletionsBody = z.object({
  count: count.describe("Users who reached a funnel's last step, summed over the funnels"),
  started: count.describe("Users who reached its first or last step, summed likewise"),
});
