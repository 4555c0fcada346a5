import { z } from "zod";
import { PLATFORMS } from "../../../domain/apps/events.ts";
import { ISSUE_ALERT_FREQUENCIES } from "../../../domain/projects/settings.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

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
  worldwide_average_rating: z.number().nullable().describe("App Store rating across storefronts, each storefront's average weighted by its rating count (2 decimals); apple apps only"),
  worldwide_rating_count: z.number().int().nullable().describe("ratings across storefronts, all versions; apple apps only"),
  worldwide_current_version_rating: z.number().nullable().describe("as worldwide_average_rating, for the current version"),
  worldwide_current_version_rating_count: z.number().int().nullable().describe("ratings of the current version across storefronts"),
  worldwide_rating_count_delta: z
    .number()
    .int()
    .nullable()
    .describe("change of worldwide_rating_count since the previous daily snapshot, over the storefronts of that snapshot (one gone counts its whole count lost, a new one 0); null without a previous snapshot"),
  ratings_synced_at: timestamp.nullable().describe("when the latest ratings snapshot was taken; null before the first sync and for other platforms"),
  created_at: timestamp,
  updated_at: timestamp,
});

/** A project as the examples show it, just created with the defaults. */
export const exampleProject = {
  id: EXAMPLE.projectId,
  team_id: EXAMPLE.teamId,
  name: "My app",
  slug: "my-app",
  color: "#4F46E5",
  retention_days_events: null,
  retention_days_metrics: null,
  retention_days_funnels: null,
  attachment_user_quota_bytes: null,
  attachment_project_quota_bytes: null,
  issue_alert_frequency: null,
  effective_retention_days_events: 120,
  effective_retention_days_metrics: 365,
  effective_retention_days_funnels: 365,
  effective_attachment_user_quota_bytes: 262_144_000,
  effective_attachment_project_quota_bytes: 5_368_709_120,
  effective_issue_alert_frequency: "daily",
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} satisfies z.input<typeof projectBody>;

/** An app of the example project as the examples show it, just created with its client key. */
export const exampleApp = {
  id: EXAMPLE.appId,
  team_id: EXAMPLE.teamId,
  project_id: EXAMPLE.projectId,
  name: "Shop for iOS",
  platform: "apple",
  bundle_id: "com.example.shop",
  client_secret: "svc_client_Q2xpZW50U2VjcmV0RXhhbXBsZTEyMzQ",
  worldwide_average_rating: null,
  worldwide_rating_count: null,
  worldwide_current_version_rating: null,
  worldwide_current_version_rating_count: null,
  worldwide_rating_count_delta: null,
  ratings_synced_at: null,
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} satisfies z.input<typeof appBody>;
