import type { JobHandler } from "../job-context.ts";

const PROVIDER_OF = { subprov_sync: "subscription provider (subprov)", subprov_user_backfill: "subscription provider (subprov)", adnet_sync: "ad network (adnet)" } as const;

/**
 * `subprov_sync`, `subprov_user_backfill`, `adnet_sync`: they work through a project's provider
 * integration, and no project has one until integrations can be configured, so the run fails
 * saying what is missing rather than completing with nothing done.
 */
export const requiresIntegration =
  (jobType: keyof typeof PROVIDER_OF): JobHandler =>
  async () => {
    throw new Error(`no ${PROVIDER_OF[jobType]} integration is configured for this project; configure one before running ${jobType}`);
  };
