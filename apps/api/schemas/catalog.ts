import { z } from "zod";
import { PLATFORMS } from "../../../domain/apps/events.ts";
import { ISSUE_ALERT_FREQUENCIES } from "../../../domain/projects/settings.ts";
import { timestamp } from "./common.ts";

const nullableInt = z.number().int().nullable();

/** A project with each override next to its effective value (SPEC, Project resource). */
export const projectBody = z.object({
  id: z.string().uuid(),
  team_id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  color: z.string(),
  retention_days_events: nullableInt,
  retention_days_metrics: nullableInt,
  retention_days_funnels: nullableInt,
  attachment_user_quota_bytes: nullableInt,
  attachment_project_quota_bytes: nullableInt,
  issue_alert_frequency: z.enum(ISSUE_ALERT_FREQUENCIES).nullable(),
  effective_retention_days_events: z.number().int(),
  effective_retention_days_metrics: z.number().int(),
  effective_retention_days_funnels: z.number().int(),
  effective_attachment_user_quota_bytes: z.number().int(),
  effective_attachment_project_quota_bytes: z.number().int(),
  effective_issue_alert_frequency: z.enum(ISSUE_ALERT_FREQUENCIES),
  created_at: timestamp,
  updated_at: timestamp,
});

/** An app with its client key and its store ratings (SPEC, App resource). */
export const appBody = z.object({
  id: z.string().uuid(),
  team_id: z.string().uuid(),
  project_id: z.string().uuid(),
  name: z.string(),
  platform: z.enum(PLATFORMS),
  bundle_id: z.string().nullable(),
  client_secret: z.string(),
  worldwide_average_rating: z.number().nullable(),
  worldwide_rating_count: z.number().int().nullable(),
  worldwide_current_version_rating: z.number().nullable(),
  worldwide_current_version_rating_count: z.number().int().nullable(),
  worldwide_rating_count_delta: z.number().int().nullable(),
  ratings_synced_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
