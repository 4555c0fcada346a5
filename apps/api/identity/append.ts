import type { IdentityFact } from "../../../domain/identity/events.ts";
import { unavailable } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { identityVersion } from "../../../projections/app-users/records.ts";
import { append } from "../../../streams/append.ts";
import { ConcurrencyError } from "../../../streams/errors.ts";
import type { ApiDeps } from "../deps.ts";
import type { IdentityCaller } from "./caller.ts";

/** Attempts before a contended identity write answers 503: each lost race costs one projector round trip. */
const ATTEMPTS = 12;

/** The fields every identity fact carries: a new id, the caller's team, project and app, now. */
export const factHeader = (caller: IdentityCaller) => ({
  v: 1 as const,
  id: newId(),
  team_id: caller.teamId,
  project_id: caller.projectId,
  app_id: caller.appId,
  at: new Date().toISOString(),
});

/**
 * Runs one identity decision until it sticks. Each attempt finds the subject to write (`locate`,
 * outside the queue, as it may read the read model), then, queued behind this instance's other
 * writes of that subject, reads the subject's version before `decide` reads anything else, so the
 * decision is never older than the version its append expects. `decide` returns null to decide
 * again (a lost race, a superseded fact).
 * @throws DomainError unavailable when every attempt lost
 */
export async function decideOnSubject<L extends { subject: string }, T>(
  deps: ApiDeps,
  locate: () => Promise<L>,
  decide: (located: L, version: number) => Promise<T | null>,
): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const located = await locate();
    const outcome = await deps.oneAtATime.run(located.subject, async () => decide(located, await identityVersion(deps.pool, located.subject)));
    if (outcome !== null) return outcome;
  }
  throw unavailable("too much contention on this user; retry");
}

/**
 * Appends an identity fact on its user's subject, expecting `version` as the subject's last
 * sequence, and waits until `readModels` have applied it. Returns the fact's sequence, or null
 * when another writer got there first (the caller waits for that write, reads again and decides
 * again).
 * @throws DomainError unavailable when the read models do not catch up in time (the fact is stored)
 */
export async function appendIdentityFact(
  deps: ApiDeps,
  subject: string,
  version: number,
  fact: IdentityFact,
  readModels: string[],
): Promise<number | null> {
  const payload = JSON.stringify(fact);
  let expected = version;
  let seq: number | undefined;
  // At most two tries: the second only when the stream no longer holds the subject's last fact.
  for (let tries = 0; seq === undefined; tries += 1) {
    try {
      seq = (await append(deps.log, subject, payload, { expectedLastSeq: expected, msgId: fact.id })).seq;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      if (tries > 0 || error.actual === undefined || error.actual > expected) {
        await deps.progress.waitFor(["app_users"], error.actual ?? expected + 1, 2_000);
        return null;
      }
      // The subject's last message is older than the one the read model applied: the stream no
      // longer holds it (age limit or purge). Nothing newer was written, so the stored last
      // sequence is the one to expect.
      expected = error.actual;
    }
  }
  const visible = await deps.progress.waitFor(readModels, seq, deps.config.readYourWritesTimeoutMs);
  if (!visible) throw unavailable("the change was saved but the read models are behind; retry the read shortly");
  return seq;
}
