import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { IdentityState } from "../../domain/identity/decider.ts";
import { sortedProperties } from "../../domain/identity/properties.ts";

/** A stored app user as the projector and the identity decisions read it. */
export const recordRow = z.object({
  id: z.string(),
  project_id: z.string(),
  user_id: z.string(),
  is_anonymous: z.boolean(),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
  last_country_code: z.string().nullable(),
  last_country_at: z.string().nullable(),
  last_app_version: z.string().nullable(),
  last_app_version_at: z.string().nullable(),
  last_sdk_name: z.string().nullable(),
  last_sdk_version: z.string().nullable(),
  last_sdk_at: z.string().nullable(),
  last_locale: z.string().nullable(),
  last_locale_at: z.string().nullable(),
  last_preferred_language: z.string().nullable(),
  last_preferred_language_at: z.string().nullable(),
  is_dev: z.boolean(),
  is_dev_at: z.string().nullable(),
  claimed_from: z.array(z.string()).nullable(),
  properties: z.record(z.string()),
  merged_at_seq: z.number(),
  lifetime_revenue_usd_cents: z.number(),
  revenue_synced_at: z.string().nullable(),
});
export type AppUserRecord = z.infer<typeof recordRow>;

const COLUMNS = sql.fragment`
  id, project_id, user_id, is_anonymous, first_seen_at, last_seen_at, last_country_code, last_country_at,
  last_app_version, last_app_version_at, last_sdk_name, last_sdk_version, last_sdk_at, last_locale, last_locale_at,
  last_preferred_language, last_preferred_language_at, is_dev, is_dev_at, claimed_from, properties, merged_at_seq,
  lifetime_revenue_usd_cents, revenue_synced_at`;

/** The user's row; `forUpdate` inside the projector, which is the only writer. */
export const recordOf = (db: CommonQueryMethods, projectId: string, userId: string, forUpdate = false) =>
  db.maybeOne(sql.type(recordRow)`
    select ${COLUMNS} from app_users where project_id = ${projectId} and user_id = ${userId}
    ${forUpdate ? sql.fragment`for update` : sql.fragment``}`);

/** Who claimed `anonymousId` in the project, or null. */
export const claimerOf = (db: CommonQueryMethods, projectId: string, anonymousId: string) =>
  db.maybeOneFirst(sql.type(z.object({ user_id: z.string() }))`
    select user_id from app_user_claims where project_id = ${projectId} and anonymous_id = ${anonymousId}`);

/** The key of a (project, anonymous id) pair in the maps of claimers. */
export const claimKey = (projectId: string, anonymousId: string) => `${projectId}\n${anonymousId}`;

/** The claimers of several (project, anonymous id) pairs, keyed by `claimKey`. */
export async function claimersOf(db: CommonQueryMethods, pairs: { project_id: string; anonymous_id: string }[]): Promise<Map<string, string>> {
  if (pairs.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ project_id: z.string(), anonymous_id: z.string(), user_id: z.string() }))`
    select c.project_id, c.anonymous_id, c.user_id
      from json_to_recordset(${JSON.stringify(pairs)}::json) as p(project_id uuid, anonymous_id text)
      join app_user_claims c on c.project_id = p.project_id and c.anonymous_id = p.anonymous_id`);
  return new Map(rows.map((row) => [claimKey(row.project_id, row.anonymous_id), row.user_id]));
}

/** Stream sequence of the last identity fact on `subject` the read model applied (0: none). */
export async function identityVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  const seq = await db.maybeOneFirst(sql.type(z.object({ last_seq: z.number() }))`
    select last_seq from identity_versions where subject = ${subject}`);
  return seq ?? 0;
}

/** Whether the read model refused to apply the fact `factId` (see identity_superseded). */
export const wasSuperseded = async (db: CommonQueryMethods, factId: string) =>
  (await db.maybeOneFirst(sql.type(z.object({ reason: z.string() }))`select reason from identity_superseded where fact_id = ${factId}`)) !== null;

/**
 * The state the identity decisions on `userId`'s subject start from (domain/identity/decider.ts):
 * who claimed it, and its record's properties and merge mark, read in one statement so they agree.
 * Properties come out sorted, as a merge leaves them, so an unchanged answer reads like a changed one.
 */
export async function identityStateOf(db: CommonQueryMethods, projectId: string, userId: string): Promise<IdentityState> {
  const row = await db.one(sql.type(
    z.object({
      claimer: z.string().nullable(),
      properties: z.record(z.string()).nullable(),
      merged_at_seq: z.number().nullable(),
      lifetime_revenue_usd_cents: z.number().nullable(),
      revenue_synced_at: z.string().nullable(),
    }),
  )`
    select
      (select user_id from app_user_claims where project_id = ${projectId} and anonymous_id = ${userId}) as claimer,
      u.properties, u.merged_at_seq, u.lifetime_revenue_usd_cents, u.revenue_synced_at
    from (values (1)) as one
    left join app_users u on u.project_id = ${projectId} and u.user_id = ${userId}`);
  return {
    claimer: row.claimer,
    properties: sortedProperties(row.properties ?? {}),
    mergedAtSeq: row.merged_at_seq ?? 0,
    revenue: { cents: row.lifetime_revenue_usd_cents ?? 0, syncedAt: row.revenue_synced_at },
  };
}
