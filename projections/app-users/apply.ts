import { sql, type DatabaseTransactionConnection } from "slonik";
import type { EventsIngested } from "../../domain/ingest/events.ts";
import { isAnonymousId, type IdentityFact } from "../../domain/identity/events.ts";
import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import { isStorableText } from "../../domain/identity/text.ts";
import type { Fact, Projection } from "../_runtime/projection.ts";
import { ActivityFold } from "./activity.ts";
import { applyClaim } from "./claim.ts";
import { applyProperties } from "./properties.ts";
import { claimersOf } from "./records.ts";
import { writeActivity } from "./upsert.ts";

/**
 * Folds a run of consecutive ingest batches and writes it in one go. Anonymous ids already
 * claimed are resolved first, so activity arriving after a claim lands on the claiming user.
 */
async function writeRun(tx: DatabaseTransactionConnection, run: EventsIngested[]): Promise<void> {
  const anonymous = new Map<string, { project_id: string; anonymous_id: string }>();
  for (const fact of run) {
    for (const event of fact.events) {
      if (event.user_id !== null && isAnonymousId(event.user_id) && isStorableText(event.user_id)) {
        anonymous.set(`${fact.project_id}\n${event.user_id}`, { project_id: fact.project_id, anonymous_id: event.user_id });
      }
    }
  }
  const claimers = await claimersOf(tx, [...anonymous.values()]);
  const fold = new ActivityFold((projectId, userId) => claimers.get(`${projectId}\n${userId}`) ?? userId);
  for (const fact of run) fold.add(fact);
  if (!fold.isEmpty) await writeActivity(tx, fold);
}

async function applyIdentity(tx: DatabaseTransactionConnection, fact: IdentityFact, source: Fact): Promise<void> {
  if (fact.type === "UserClaimed") await applyClaim(tx, fact, source.seq);
  else await applyProperties(tx, fact, source.seq);
  // The subject's version moves with the rows, so a decision that reads the version first and the
  // user second never decides on a user older than the version it expects.
  await tx.query(sql.unsafe`
    insert into identity_versions (subject, last_seq) values (${source.subject}, ${source.seq})
    on conflict (subject) do update set last_seq = excluded.last_seq`);
}

/**
 * The `app_users` read model, from the INGEST stream: activity from ingest and import batches,
 * claims and property changes from identity facts, applied in stream order. Consecutive batches
 * are folded into one upsert per user; an identity fact first flushes the batches before it.
 */
export const appUsersProjection: Projection = {
  name: "app_users",
  stream: "INGEST",
  migrationsDir: new URL("./migrations/", import.meta.url),
  maxBatch: 500,
  apply: async (tx, facts) => {
    let run: EventsIngested[] = [];
    for (const source of facts) {
      const decoded = decodeIngestFact(source.data);
      if (decoded.kind === "events") {
        run.push(decoded.fact);
        continue;
      }
      if (decoded.kind === "other") continue;
      if (run.length > 0) await writeRun(tx, run);
      run = [];
      await applyIdentity(tx, decoded.fact, source);
    }
    if (run.length > 0) await writeRun(tx, run);
  },
};
