import type { EventsIngested } from "../../domain/ingest/events.ts";
import { isAnonymousId } from "../../domain/identity/events.ts";
import { isStorableText } from "../../domain/shared/text.ts";
import { derivedId } from "../../domain/shared/ids.ts";

/**
 * A value and the time it was reported at; the later time wins, a tie goes to the later event.
 * Values the SPEC ties to events carry the event time; country and `is_dev` belong to the
 * request ("the latest ingest request", "last write wins") and carry its receipt time, so a batch
 * of old events an SDK sends late still updates them.
 */
type Stamped<T> = { value: T; at: string } | null;

/** Everything one projector batch segment says about one user: the row of a bulk upsert. */
export type UserActivity = {
  id: string;
  project_id: string;
  user_id: string;
  is_anonymous: boolean;
  first_seen_at: string;
  last_seen_at: string;
  country: Stamped<string>;
  app_version: Stamped<string>;
  sdk: Stamped<{ name: string; version: string | null }>;
  locale: Stamped<string>;
  preferred_language: Stamped<string>;
  is_dev: Stamped<boolean>;
  apps: Map<string, { first_seen_at: string; last_seen_at: string }>;
};

export type AppLanguages = { app_id: string; project_id: string; languages: string[]; reported_at: string };

/** Maps a user id to the user it belongs to now (a claimed anonymous id to its claimer). */
export type Resolve = (projectId: string, userId: string) => string;

/** The custom attributes through which the SDK reports the device language and the app's languages. */
const PREFERRED_LANGUAGE_ATTRIBUTE = "preferred_language";
const SUPPORTED_LANGUAGES_ATTRIBUTE = "supported_languages";

/** Row id of a user created under `userId`; a rename on claim keeps the id the row was created with. */
export const appUserId = (projectId: string, userId: string) => derivedId(`app_user:${projectId}:${userId}`);

// Event times and receipt times are all `Date.toISOString()` strings, so comparing the strings compares the times.
function later<T>(current: Stamped<T>, value: T, at: string): Stamped<T> {
  return current === null || at >= current.at ? { value, at } : current;
}

/**
 * A text field of an event as this read model stores it: a value Postgres cannot hold (NUL, an
 * unpaired surrogate) counts as not reported rather than failing the whole projector batch.
 */
const text = (value: string | null | undefined): string | null => (value === null || value === undefined || !isStorableText(value) ? null : value);

/** `de-AT`, `pt_BR`, `zh-Hant-TW` → `de`, `pt`, `zh`. */
export const baseLanguage = (tag: string) => tag.trim().replace(/_/g, "-").split("-")[0]!.toLowerCase();

/**
 * Folds ingest batches into one activity row per user and one language report per app, so a
 * projector batch of thousands of events becomes one upsert per user instead of one per event.
 * Ingest runs at tens of thousands of events a second; this is the per-event hot path, kept free
 * of allocation beyond the rows themselves.
 */
export class ActivityFold {
  readonly users = new Map<string, UserActivity>();
  readonly languages = new Map<string, AppLanguages>();

  constructor(private readonly resolve: Resolve) {}

  get isEmpty(): boolean {
    return this.users.size === 0 && this.languages.size === 0;
  }

  add(fact: EventsIngested): void {
    // Backend apps call from servers: their country says nothing about the user, and their
    // is_dev flag describes the server, not the device.
    const client = fact.platform !== "backend";
    // An import places events in history: its is_dev counts at their times, before later requests.
    const requestAt = fact.mode === "import" ? null : fact.received_at;
    for (const event of fact.events) {
      const at = event.timestamp;
      const supported = text(event.custom_attributes[SUPPORTED_LANGUAGES_ATTRIBUTE]);
      if (supported !== null) this.#reportLanguages(fact, supported, at);
      const userId = text(event.user_id);
      if (userId === null) continue;
      const user = this.#user(fact.project_id, this.resolve(fact.project_id, userId), at);
      if (at < user.first_seen_at) user.first_seen_at = at;
      if (at > user.last_seen_at) user.last_seen_at = at;
      if (client && fact.country_code !== null) user.country = later(user.country, fact.country_code, requestAt ?? at);
      if (client) user.is_dev = later(user.is_dev, event.is_dev, requestAt ?? at);
      const appVersion = text(event.app_version);
      if (appVersion !== null) user.app_version = later(user.app_version, appVersion, at);
      const sdkName = text(event.sdk_name);
      if (sdkName !== null) user.sdk = later(user.sdk, { name: sdkName, version: text(event.sdk_version) }, at);
      const locale = text(event.locale);
      if (locale !== null) user.locale = later(user.locale, locale, at);
      const preferred = text(event.custom_attributes[PREFERRED_LANGUAGE_ATTRIBUTE])?.trim();
      if (preferred) user.preferred_language = later(user.preferred_language, preferred, at);
      const link = user.apps.get(fact.app_id);
      if (!link) user.apps.set(fact.app_id, { first_seen_at: at, last_seen_at: at });
      else {
        if (at < link.first_seen_at) link.first_seen_at = at;
        if (at > link.last_seen_at) link.last_seen_at = at;
      }
    }
  }

  #user(projectId: string, userId: string, at: string): UserActivity {
    const key = `${projectId}\n${userId}`;
    let user = this.users.get(key);
    if (!user) {
      user = {
        id: appUserId(projectId, userId),
        project_id: projectId,
        user_id: userId,
        is_anonymous: isAnonymousId(userId),
        first_seen_at: at,
        last_seen_at: at,
        country: null,
        app_version: null,
        sdk: null,
        locale: null,
        preferred_language: null,
        is_dev: null,
        apps: new Map(),
      };
      this.users.set(key, user);
    }
    return user;
  }

  #reportLanguages(fact: EventsIngested, reported: string, at: string): void {
    const current = this.languages.get(fact.app_id);
    if (current && at < current.reported_at) return;
    const languages = [...new Set(reported.split(",").map(baseLanguage).filter((tag) => /^[a-z]{2,8}$/.test(tag)))].sort();
    this.languages.set(fact.app_id, { app_id: fact.app_id, project_id: fact.project_id, languages, reported_at: at });
  }
}
