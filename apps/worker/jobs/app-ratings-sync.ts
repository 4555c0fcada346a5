import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { derivedId } from "../../../domain/shared/ids.ts";
import type { AppRatingsSnapshotted, CountryRatings } from "../../../domain/ratings/events.ts";
import { snapshotDate } from "../../../domain/ratings/worldwide.ts";
import { appleApps, type AppleAppRow } from "../../../projections/directory/catalog-queries.ts";
import { append } from "../../../streams/append.ts";
import type { AppStoreConfig } from "../../app-store-config.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import { AppStoreError, lookupRatings, Pacer } from "../ratings/app-store-client.ts";
import type { CleanupStep } from "./attachment-cleanup.ts";

export type AppRatingsSyncDeps = Pick<CommandDeps, "log" | "pool" | "progress"> & {
  config: { readYourWritesTimeoutMs: number; appStore: AppStoreConfig };
};

export type AppRatingsSyncResult = {
  /** The UTC day the snapshots stand for. */
  date: string;
  apple_apps: number;
  synced: number;
  /** Apps left without a snapshot for the day, each with why (the store, the storefront, the status). */
  failed: { app_id: string; bundle_id: string; error: string }[];
};

/**
 * Every storefront's numbers for one app, or the first lookup that failed for good. All or
 * nothing: a snapshot missing a storefront that failed would read as the app removed there, and
 * the count delta would report the storefront's ratings as lost.
 */
async function snapshotOf(config: AppStoreConfig, app: AppleAppRow, pacer: Pacer, stop: AbortSignal | undefined) {
  const countries: CountryRatings[] = [];
  const unlisted: string[] = [];
  for (const country of config.countries) {
    const listing = await lookupRatings(config, app.bundle_id, country, { pacer, stop });
    if (listing === null) unlisted.push(country);
    else countries.push({ country, ...listing });
  }
  return { countries, unlisted };
}

/**
 * Appends the snapshot on the app's ratings subject and waits until the read model has it, so the
 * app list shows it once the run completes (at most READ_YOUR_WRITES_TIMEOUT_MS: the fact is
 * stored either way and shows when the projector gets to it). The message id names the app and the run's time: a
 * publish retried after a timeout is stored once, a later run of the day is a new snapshot.
 */
async function record(deps: AppRatingsSyncDeps, snapshot: AppRatingsSnapshotted): Promise<void> {
  const msgId = derivedId(`ratings:${snapshot.app_id}:${snapshot.synced_at}`);
  const payload = JSON.stringify({ id: msgId, at: snapshot.synced_at, actor: SYSTEM_ACTOR, events: [snapshot] });
  const { seq } = await append(deps.log, deps.log.names.aggregateSubject("ratings", snapshot.app_id), payload, { msgId });
  await deps.progress.waitFor(["ratings"], seq, deps.config.readYourWritesTimeoutMs);
}

/**
 * The daily ratings sync (job `app_ratings_sync`): for every active apple-platform app, the store's
 * ratings in each configured storefront as one `AppRatingsSnapshotted` for `now`'s UTC day. An app
 * whose lookups fail is reported in `failed` and keeps its earlier snapshots; the others are
 * recorded all the same. Running again the same day replaces that day's snapshots.
 */
export async function runAppRatingsSync(
  deps: AppRatingsSyncDeps,
  now: Date,
  onStep: CleanupStep = async () => undefined,
  stop?: AbortSignal,
): Promise<AppRatingsSyncResult> {
  const apps = await appleApps(deps.pool);
  const date = snapshotDate(now);
  const syncedAt = now.toISOString();
  const pacer = new Pacer(deps.config.appStore.requestIntervalMs);
  const failed: AppRatingsSyncResult["failed"] = [];
  let synced = 0;
  for (const [index, app] of apps.entries()) {
    try {
      const { countries, unlisted } = await snapshotOf(deps.config.appStore, app, pacer, stop);
      await record(deps, {
        type: "AppRatingsSnapshotted",
        v: 1,
        app_id: app.id,
        team_id: app.team_id,
        project_id: app.project_id,
        bundle_id: app.bundle_id,
        date,
        synced_at: syncedAt,
        countries,
        unlisted,
      });
      synced += 1;
    } catch (error) {
      if (!(error instanceof AppStoreError)) throw error;
      failed.push({ app_id: app.id, bundle_id: app.bundle_id, error: error.message });
    }
    await onStep(index + 1, apps.length, `synced ${synced} of ${apps.length} apps${failed.length > 0 ? `, ${failed.length} failed` : ""}`);
  }
  return { date, apple_apps: apps.length, synced, failed };
}
