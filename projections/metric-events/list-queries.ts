import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { METRIC_PHASES, type MetricPhase } from "../../domain/metrics/derive.ts";
import { and, iso } from "../derived-events/sql.ts";
import type { DataMode } from "../../domain/analytics/window.ts";
import { eventScope } from "./scope.ts";

const metricEventRow = z.object({
  id: z.string(),
  app_id: z.string(),
  session_id: z.string(),
  user_id: z.string().nullable(),
  api_key_id: z.string(),
  metric_slug: z.string(),
  phase: z.enum(METRIC_PHASES),
  tracking_id: z.string().nullable(),
  duration_ms: z.number().nullable(),
  error: z.string().nullable(),
  attributes: z.record(z.string()),
  environment: z.string(),
  os_version: z.string().nullable(),
  app_version: z.string().nullable(),
  device_model: z.string().nullable(),
  build_number: z.string().nullable(),
  is_dev: z.boolean(),
  client_event_id: z.string().nullable(),
  timestamp: z.string(),
  received_at: z.string(),
});
export type MetricEventView = z.infer<typeof metricEventRow>;

export type MetricEventList = {
  projectId: string;
  appIds: readonly string[];
  slug: string;
  since: Date;
  until?: Date;
  dataMode: DataMode;
  phase?: MetricPhase;
  trackingId?: string;
  userId?: string;
  environment?: string;
};

/** Position after the last row of the previous page; `id` breaks ties between equal timestamps. */
export type ListCursor = { timestamp: string; id?: string };

/** One page, newest first by (timestamp, id), with one extra row so the caller knows if more exist. */
export function listMetricEvents(db: CommonQueryMethods, list: MetricEventList, page: { cursor?: ListCursor; limit: number }) {
  const conditions = [...eventScope(list, [list.slug], { userId: list.userId, environment: list.environment }), sql.fragment`e."timestamp" >= ${iso(list.since)}`];
  if (list.until) conditions.push(sql.fragment`e."timestamp" <= ${iso(list.until)}`);
  if (list.phase !== undefined) conditions.push(sql.fragment`e.phase = ${list.phase}`);
  if (list.trackingId !== undefined) conditions.push(sql.fragment`e.tracking_id = ${list.trackingId}`);
  const cursor = page.cursor;
  if (cursor) {
    const at = sql.fragment`${cursor.timestamp}::timestamptz`;
    conditions.push(
      cursor.id === undefined
        ? sql.fragment`e."timestamp" < ${at}`
        : sql.fragment`e."timestamp" <= ${at} and (e."timestamp", e.id) < (${at}, ${cursor.id}::uuid)`,
    );
  }
  return db.any(sql.type(metricEventRow)`
    select e.id, e.app_id, e.session_id, e.user_id, e.api_key_id, e.metric_slug, e.phase, e.tracking_id, e.duration_ms, e.error,
           e.attributes, e.environment, e.os_version, e.app_version, e.device_model, e.build_number, e.is_dev, e.client_event_id,
           e."timestamp", e.received_at
      from metric_events e where ${and(conditions)}
     order by e."timestamp" desc, e.id desc limit ${page.limit + 1}`);
}
