import { sql, type DatabaseTransactionConnection } from "slonik";
import { isAnonymousId, type UserClaimed } from "../../domain/identity/events.ts";
import { mergeOnClaim } from "../../domain/identity/properties.ts";
import { appUserId } from "./activity.ts";
import { claimerOf, recordOf, type AppUserRecord } from "./records.ts";

type StampedField = { value: keyof AppUserRecord; stamp: keyof AppUserRecord; also?: keyof AppUserRecord };

// Each last_* value moves with its time stamp; the sdk name and version move together.
const STAMPED: StampedField[] = [
  { value: "last_country_code", stamp: "last_country_at" },
  { value: "last_app_version", stamp: "last_app_version_at" },
  { value: "last_sdk_name", stamp: "last_sdk_at", also: "last_sdk_version" },
  { value: "last_locale", stamp: "last_locale_at" },
  { value: "last_preferred_language", stamp: "last_preferred_language_at" },
  { value: "is_dev", stamp: "is_dev_at" },
];

const appendOnce = (list: string[] | null, ...ids: string[]) => [...new Set([...(list ?? []), ...ids])];

/** The identified record after the anonymous one is merged in: every value from the side that saw it last. */
function mergedRecord(anonymous: AppUserRecord, identified: AppUserRecord, seq: number): AppUserRecord {
  const merged: AppUserRecord = { ...identified };
  for (const field of STAMPED) {
    const theirs = anonymous[field.stamp] as string | null;
    const ours = identified[field.stamp] as string | null;
    if (theirs === null || (ours !== null && ours >= theirs)) continue;
    Object.assign(merged, { [field.value]: anonymous[field.value], [field.stamp]: theirs });
    if (field.also) Object.assign(merged, { [field.also]: anonymous[field.also] });
  }
  merged.first_seen_at = anonymous.first_seen_at < identified.first_seen_at ? anonymous.first_seen_at : identified.first_seen_at;
  merged.last_seen_at = anonymous.last_seen_at > identified.last_seen_at ? anonymous.last_seen_at : identified.last_seen_at;
  merged.claimed_from = appendOnce(identified.claimed_from, ...(anonymous.claimed_from ?? []), anonymous.user_id);
  merged.properties = mergeOnClaim(anonymous.properties, identified.properties);
  merged.merged_at_seq = seq;
  // One customer at the provider under two ids: the figure synced last is the current one.
  if (anonymous.revenue_synced_at !== null && (identified.revenue_synced_at === null || anonymous.revenue_synced_at > identified.revenue_synced_at)) {
    merged.lifetime_revenue_usd_cents = anonymous.lifetime_revenue_usd_cents;
    merged.revenue_synced_at = anonymous.revenue_synced_at;
  }
  return merged;
}

/**
 * Applies a claim (SPEC Identity, user records): both exist → the anonymous record is merged into
 * the identified one and deleted; only the anonymous one → renamed; only the identified one →
 * `claimed_from` grows; neither → a new identified record. The claim is remembered, so later
 * activity under the anonymous id lands on the identified user. A repeated claim (sent to sweep
 * stray events) changes nothing here: the anonymous record cannot have come back.
 */
export async function applyClaim(tx: DatabaseTransactionConnection, claim: UserClaimed, seq: number): Promise<void> {
  const { project_id: projectId, anonymous_id: anonymousId, user_id: userId } = claim;
  if ((await claimerOf(tx, projectId, anonymousId)) !== null) return;
  await tx.query(sql.unsafe`
    insert into app_user_claims (project_id, anonymous_id, user_id, claimed_at) values (${projectId}, ${anonymousId}, ${userId}, ${claim.at})`);
  const anonymous = await recordOf(tx, projectId, anonymousId, true);
  const identified = await recordOf(tx, projectId, userId, true);

  if (anonymous && identified) {
    await writeRecord(tx, mergedRecord(anonymous, identified, seq));
    await tx.query(sql.unsafe`delete from app_users where id = ${anonymous.id}`);
    await tx.query(sql.unsafe`delete from app_user_search where project_id = ${projectId} and user_id = ${anonymousId}`);
    await tx.query(sql.unsafe`
      insert into app_user_apps as l (project_id, user_id, app_id, first_seen_at, last_seen_at)
      select project_id, ${userId}, app_id, first_seen_at, last_seen_at from app_user_apps
       where project_id = ${projectId} and user_id = ${anonymousId}
      on conflict (project_id, user_id, app_id) do update set
        first_seen_at = least(l.first_seen_at, excluded.first_seen_at), last_seen_at = greatest(l.last_seen_at, excluded.last_seen_at)`);
    await tx.query(sql.unsafe`delete from app_user_apps where project_id = ${projectId} and user_id = ${anonymousId}`);
  } else if (anonymous) {
    await tx.query(sql.unsafe`
      update app_users set user_id = ${userId}, is_anonymous = false, merged_at_seq = ${seq},
             claimed_from = ${sql.array(appendOnce(anonymous.claimed_from, anonymousId), "text")}
       where id = ${anonymous.id}`);
    await tx.query(sql.unsafe`update app_user_apps set user_id = ${userId} where project_id = ${projectId} and user_id = ${anonymousId}`);
    await tx.query(sql.unsafe`update app_user_search set user_id = ${userId} where project_id = ${projectId} and user_id = ${anonymousId}`);
  } else if (identified) {
    await tx.query(sql.unsafe`
      update app_users set claimed_from = ${sql.array(appendOnce(identified.claimed_from, anonymousId), "text")}, merged_at_seq = ${seq}
       where id = ${identified.id}`);
  } else {
    await createRecord(tx, { projectId, userId, appId: claim.app_id, at: claim.at, claimedFrom: [anonymousId], mergedAtSeq: seq });
  }
}

/** A user known only through identity calls: seen at the call's time, linked to the calling app. */
export async function createRecord(
  tx: DatabaseTransactionConnection,
  user: {
    projectId: string;
    userId: string;
    appId: string;
    at: string;
    claimedFrom: string[] | null;
    mergedAtSeq: number;
    properties?: Record<string, string>;
  },
): Promise<void> {
  await tx.query(sql.unsafe`
    insert into app_users (id, project_id, user_id, is_anonymous, first_seen_at, last_seen_at, claimed_from, properties, merged_at_seq)
    values (${appUserId(user.projectId, user.userId)}, ${user.projectId}, ${user.userId}, ${isAnonymousId(user.userId)}, ${user.at}, ${user.at},
            ${user.claimedFrom === null ? null : sql.array(user.claimedFrom, "text")}, ${sql.jsonb(user.properties ?? {})},
            ${user.mergedAtSeq})`);
  await tx.query(sql.unsafe`insert into app_user_search (project_id, user_id) values (${user.projectId}, ${user.userId})`);
  await tx.query(sql.unsafe`
    insert into app_user_apps (project_id, user_id, app_id, first_seen_at, last_seen_at)
    values (${user.projectId}, ${user.userId}, ${user.appId}, ${user.at}, ${user.at})`);
}

async function writeRecord(tx: DatabaseTransactionConnection, record: AppUserRecord): Promise<void> {
  await tx.query(sql.unsafe`
    update app_users set
      first_seen_at = ${record.first_seen_at}, last_seen_at = ${record.last_seen_at},
      last_country_code = ${record.last_country_code}, last_country_at = ${record.last_country_at},
      last_app_version = ${record.last_app_version}, last_app_version_at = ${record.last_app_version_at},
      last_sdk_name = ${record.last_sdk_name}, last_sdk_version = ${record.last_sdk_version}, last_sdk_at = ${record.last_sdk_at},
      last_locale = ${record.last_locale}, last_locale_at = ${record.last_locale_at},
      last_preferred_language = ${record.last_preferred_language}, last_preferred_language_at = ${record.last_preferred_language_at},
      is_dev = ${record.is_dev}, is_dev_at = ${record.is_dev_at},
      claimed_from = ${sql.array(record.claimed_from ?? [], "text")}, properties = ${sql.jsonb(record.properties)},
      merged_at_seq = ${record.merged_at_seq},
      lifetime_revenue_usd_cents = ${record.lifetime_revenue_usd_cents}, revenue_synced_at = ${record.revenue_synced_at}
     where id = ${record.id}`);
}
