import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { TeamApps } from "../../domain/apps/decider.ts";
import { PLATFORMS } from "../../domain/apps/events.ts";
import type { TeamProjects } from "../../domain/projects/decider.ts";
import { DEFAULTS, ISSUE_ALERT_FREQUENCIES, UPDATABLE_FIELDS } from "../../domain/projects/settings.ts";

export const projectRow = z.object({
  id: z.string(),
  team_id: z.string(),
  name: z.string(),
  slug: z.string(),
  color: z.string(),
  retention_days_events: z.number().nullable(),
  retention_days_metrics: z.number().nullable(),
  retention_days_funnels: z.number().nullable(),
  attachment_user_quota_bytes: z.number().nullable(),
  attachment_project_quota_bytes: z.number().nullable(),
  issue_alert_frequency: z.enum(ISSUE_ALERT_FREQUENCIES).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProjectRow = z.infer<typeof projectRow>;

const projectColumns = sql.fragment`
  p.id, p.team_id, p.name, p.slug, p.color, p.retention_days_events, p.retention_days_metrics, p.retention_days_funnels,
  p.attachment_user_quota_bytes, p.attachment_project_quota_bytes, p.issue_alert_frequency, p.created_at, p.updated_at`;

/** The API shape: every override next to its `effective_` value. */
export function toProject(row: ProjectRow) {
  return {
    ...row,
    effective_retention_days_events: row.retention_days_events ?? DEFAULTS.retention_days_events,
    effective_retention_days_metrics: row.retention_days_metrics ?? DEFAULTS.retention_days_metrics,
    effective_retention_days_funnels: row.retention_days_funnels ?? DEFAULTS.retention_days_funnels,
    effective_attachment_user_quota_bytes: row.attachment_user_quota_bytes ?? DEFAULTS.attachment_user_quota_bytes,
    effective_attachment_project_quota_bytes: row.attachment_project_quota_bytes ?? DEFAULTS.attachment_project_quota_bytes,
    effective_issue_alert_frequency: row.issue_alert_frequency ?? DEFAULTS.issue_alert_frequency,
  };
}

/** Active projects of the given teams, oldest first. */
export const projectsOfTeams = (db: CommonQueryMethods, teamIds: readonly string[]) =>
  db.any(sql.type(projectRow)`
    select ${projectColumns} from projects p
     where p.team_id = any(${sql.array(teamIds, "uuid")}) and p.deleted_at is null order by p.created_at, p.id`);

export const activeProject = (db: CommonQueryMethods, projectId: string) =>
  db.maybeOne(sql.type(projectRow)`select ${projectColumns} from projects p where p.id = ${projectId} and p.deleted_at is null`);

/** Every project of a team as the projects decider sees it, soft-deleted ones included. */
export async function teamProjects(db: CommonQueryMethods, teamId: string): Promise<TeamProjects> {
  const rows = await db.any(sql.type(projectRow.extend({ deleted: z.boolean() }))`
    select ${projectColumns}, p.deleted_at is not null as deleted from projects p where p.team_id = ${teamId}`);
  return {
    teamId,
    projects: rows.map((row) => ({
      id: row.id,
      slug: row.slug,
      deleted: row.deleted,
      values: Object.fromEntries(UPDATABLE_FIELDS.map((field) => [field, row[field]])) as TeamProjects["projects"][number]["values"],
    })),
  };
}

export const appRow = z.object({
  id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  platform: z.enum(PLATFORMS),
  bundle_id: z.string().nullable(),
  client_secret: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AppRow = z.infer<typeof appRow>;

const appColumns = sql.fragment`
  a.id, a.team_id, a.project_id, a.name, a.platform, a.bundle_id, k.secret as client_secret, a.created_at, a.updated_at`;

/**
 * The API shape without store ratings: null until `apps/api/app-ratings.ts` adds the ratings
 * read model's numbers, which only apple-platform apps have.
 */
export function toApp(row: AppRow) {
  return {
    ...row,
    worldwide_average_rating: null,
    worldwide_rating_count: null,
    worldwide_current_version_rating: null,
    worldwide_current_version_rating_count: null,
    worldwide_rating_count_delta: null,
    ratings_synced_at: null,
  };
}

export const appsOfTeams = (db: CommonQueryMethods, teamIds: readonly string[]) =>
  db.any(sql.type(appRow)`
    select ${appColumns} from apps a join api_keys k on k.id = a.client_key_id
     where a.team_id = any(${sql.array(teamIds, "uuid")}) and a.deleted_at is null order by a.created_at, a.id`);

export const appsOfProject = (db: CommonQueryMethods, projectId: string) =>
  db.any(sql.type(appRow)`
    select ${appColumns} from apps a join api_keys k on k.id = a.client_key_id
     where a.project_id = ${projectId} and a.deleted_at is null order by a.created_at, a.id`);

export const activeApp = (db: CommonQueryMethods, appId: string) =>
  db.maybeOne(sql.type(appRow)`
    select ${appColumns} from apps a join api_keys k on k.id = a.client_key_id where a.id = ${appId} and a.deleted_at is null`);

/** A team's active projects and apps as the apps decider sees them (domain/apps/decider.ts). */
export async function teamApps(db: CommonQueryMethods, teamId: string): Promise<TeamApps> {
  const projectIds = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    select id from projects where team_id = ${teamId} and deleted_at is null order by created_at, id`);
  const apps = await db.any(sql.type(appRow.extend({ client_key_id: z.string() }))`
    select ${appColumns}, a.client_key_id from apps a join api_keys k on k.id = a.client_key_id
     where a.team_id = ${teamId} and a.deleted_at is null order by a.created_at, a.id`);
  return {
    teamId,
    projectIds: [...projectIds],
    apps: apps.map((app) => ({
      id: app.id,
      projectId: app.project_id,
      name: app.name,
      platform: app.platform,
      bundleId: app.bundle_id,
      clientKeyId: app.client_key_id,
      clientSecret: app.client_secret,
    })),
  };
}

/**
 * Every app of the project, deleted ones included: a claim reassigns the anonymous id's rows in
 * all of them, and the ids travel in the claim fact.
 */
export const projectAppIds = (db: CommonQueryMethods, projectId: string) =>
  db.anyFirst(sql.type(z.object({ id: z.string() }))`select id from apps where project_id = ${projectId} order by id`);

export const appleAppRow = z.object({ id: z.string(), team_id: z.string(), project_id: z.string(), bundle_id: z.string() });
export type AppleAppRow = z.infer<typeof appleAppRow>;

/**
 * Active apple-platform apps of every team with their bundle ids, oldest first: the ones store
 * ratings exist for (the app_ratings_sync job). An apple app always has a bundle id.
 */
export const appleApps = (db: CommonQueryMethods) =>
  db.any(sql.type(appleAppRow)`
    select id, team_id, project_id, bundle_id from apps
     where platform = 'apple' and deleted_at is null and bundle_id is not null order by created_at, id`);

/** Every active project, oldest first: the issue digest job goes through them all. */
export const allActiveProjects = (db: CommonQueryMethods) =>
  db.any(sql.type(projectRow)`select ${projectColumns} from projects p where p.deleted_at is null order by p.created_at, p.id`);
