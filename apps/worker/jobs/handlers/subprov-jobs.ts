import { isAnonymousId } from "../../../../domain/identity/events.ts";
import { SUBPROV } from "../../../../domain/integrations/providers.ts";
import { PROVIDER_ANONYMOUS_PREFIX } from "../../../../domain/integrations/subprov-webhook.ts";
import { identifiedUserCount, identifiedUsersAfter, knownUserIds } from "../../../../projections/app-users/subprov-queries.ts";
import { activeIntegration, type IntegrationRow } from "../../../../projections/integrations/queries.ts";
import type { CommandDeps } from "../../../commands/deps.ts";
import { ProviderError } from "../../../integrations/provider-http.ts";
import type { SubprovSettings } from "../../../integrations/subprov-client.ts";
import { subprovClientFor, syncUser } from "../../../integrations/subprov-sync.ts";
import type { JobHandler, RunInfo } from "../job-context.ts";

export type SubprovJobDeps = CommandDeps & { config: CommandDeps["config"] & { subprov: SubprovSettings } };

/** Users read per page; progress is reported (and cancellation checked) after each. */
const PAGE = 50;

/** The run's project's enabled integration. @throws Error saying what is missing, which fails the run */
async function integrationOf(deps: SubprovJobDeps, run: RunInfo): Promise<IntegrationRow> {
  const integration = await activeIntegration(deps.pool, run.projectId!, SUBPROV);
  if (!integration || !integration.enabled) throw new Error(`no subscription provider (${SUBPROV}) integration is configured and enabled for this project; configure one before running ${run.jobType}`);
  return integration;
}

/** Counts of a run's users, and the first provider error (named, never with a key) for the result. */
type Tally = { updated: number; unchanged: number; unknown: number; entitlements_only: number; failed: number; first_error: string | null };
const newTally = (): Tally => ({ updated: 0, unchanged: 0, unknown: 0, entitlements_only: 0, failed: 0, first_error: null });

/** Syncs one user into the tally; a provider failure is counted, anything else fails the run. */
async function syncInto(tally: Tally, sync: () => ReturnType<typeof syncUser>): Promise<void> {
  try {
    const outcome = await sync();
    if (outcome.kind === "unknown") tally.unknown += 1;
    else {
      if (outcome.updated) tally.updated += 1;
      else tally.unchanged += 1;
      if (outcome.entitlementsOnly) tally.entitlements_only += 1;
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    tally.failed += 1;
    tally.first_error ??= error.message;
  }
}

/** A run in which every attempted user failed at the provider did nothing: it fails, saying why. */
function settle(tally: Tally, attempted: number, extra: Record<string, unknown>): Record<string, unknown> {
  if (attempted > 0 && tally.failed === attempted) throw new Error(`every user failed at the subscription provider: ${tally.first_error}`);
  return { ...extra, ...tally };
}

/**
 * `subprov_sync`: re-syncs every identified (non-anonymous) user of the project from the
 * provider's REST API, in user id order, reporting progress per page. Users the provider does not
 * know are counted and left as they are; a provider failure for one user is counted and the run
 * goes on (the next run retries it).
 */
export function subprovSync(deps: SubprovJobDeps): JobHandler {
  return async ({ run, progress, signal }) => {
    const integration = await integrationOf(deps, run);
    const total = await identifiedUserCount(deps.pool, integration.project_id);
    const tally = newTally();
    let processed = 0;
    let after: string | null = null;
    await progress(0, total, `syncing ${total} users`);
    for (;;) {
      const users: readonly string[] = await identifiedUsersAfter(deps.pool, integration.project_id, after, PAGE);
      for (const userId of users) {
        await syncInto(tally, () => syncUser(deps, deps.config.subprov, integration, userId, { signal }));
        processed += 1;
      }
      after = users.at(-1) ?? null;
      // Users created during the run may take the count past the first total.
      await progress(processed, Math.max(total, processed), `synced ${processed} of ${Math.max(total, processed)} users`);
      if (users.length < PAGE) break;
    }
    return settle(tally, processed, { total: Math.max(total, processed), processed });
  };
}

/**
 * `subprov_user_backfill`: walks the provider's customer list (v2, oldest first, page by page
 * through its `next_page`) and syncs every customer the project does not know yet, which creates
 * the user, first seen when the provider first saw them. The provider's anonymous ids and ours are
 * skipped: nobody can be identified by them. Known users are left to `subprov_sync`.
 */
export function subprovUserBackfill(deps: SubprovJobDeps): JobHandler {
  return async ({ run, progress, signal }) => {
    const integration = await integrationOf(deps, run);
    const client = subprovClientFor(deps.config.subprov, integration);
    const tally = newTally();
    let customers = 0;
    let created = 0;
    let known = 0;
    let anonymous = 0;
    let page: string | null = null;
    do {
      const listed: Awaited<ReturnType<typeof client.customers>> = await client.customers(page, 100, signal);
      const ids = listed.customers.map((customer) => customer.id);
      const existing = await knownUserIds(deps.pool, integration.project_id, ids);
      for (const customer of listed.customers) {
        customers += 1;
        if (customer.id.startsWith(PROVIDER_ANONYMOUS_PREFIX) || isAnonymousId(customer.id)) anonymous += 1;
        else if (existing.has(customer.id)) known += 1;
        else {
          const before = tally.failed + tally.unknown;
          await syncInto(tally, () => syncUser(deps, deps.config.subprov, integration, customer.id, { signal, firstSeenAt: customer.firstSeenAt }));
          if (tally.failed + tally.unknown === before) created += 1;
        }
      }
      page = listed.nextPage;
      await progress(customers, null, `examined ${customers} provider customers, created ${created} users`);
    } while (page !== null);
    return settle(tally, created + tally.failed + tally.unknown, { customers, created, already_known: known, anonymous_skipped: anonymous });
  };
}
