import type { DatabasePool } from "slonik";
import { appleAppCount } from "../../../../projections/directory/catalog-queries.ts";
import type { JobHandler } from "../job-context.ts";

/**
 * `app_ratings_sync`: snapshots store ratings of apple-platform apps. The store client arrives
 * with integrations; until then the run reports the apps it would sync and that none were.
 */
export const appRatingsSync =
  (pool: DatabasePool): JobHandler =>
  async () => ({ apple_apps: await appleAppCount(pool), synced: 0 });
