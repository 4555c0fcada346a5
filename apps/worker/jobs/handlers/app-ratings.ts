import { runAppRatingsSync, type AppRatingsSyncDeps } from "../app-ratings-sync.ts";
import { JobStopped, type JobHandler } from "../job-context.ts";

/**
 * `app_ratings_sync`: the store ratings of every apple-platform app (`runAppRatingsSync`). The run
 * fails when any app's lookups failed, naming how many and the first error, so a store outage is
 * seen in the run's status; the apps that did sync keep their new snapshots.
 */
export const appRatingsSync =
  (deps: AppRatingsSyncDeps): JobHandler =>
  async ({ progress, signal }) => {
    const result = await runAppRatingsSync(deps, new Date(), (processed, total, message) => progress(processed, total, message), signal).catch((error: unknown) => {
      // A wait cut short by the run's stop is the stop, not a failure of the sync.
      if (signal.aborted && !(error instanceof JobStopped)) throw new JobStopped("the run was stopped during a store lookup");
      throw error;
    });
    const [first] = result.failed;
    if (first !== undefined) throw new Error(`app ratings sync: ${result.failed.length} of ${result.apple_apps} apps failed; first: ${first.error}`);
    return result;
  };
