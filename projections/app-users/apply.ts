import { sql, type DatabaseTransactionConnection } from "slonik";
import type { EventsIngested } from "../../domain/ingest/events.ts";
import { isAnonymousId, type IdentityFact } from "../../domain/identity/events.ts";
import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import { isStorableText } from "../../domain/shared/text.ts";
import { LoopTurns } from "../_runtime/loop-turns.ts";
import type { Projection } from "../_runtime/projection.ts";
import { ActivityFold } from "./activity.ts";
import { applyClaim } from "./claim.ts";
import { applyProperties } from "./properties.ts";
import { applyRevenue } from "./revenue.ts";
import { claimersOf, claimKey } from "./records.ts";
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
        anonymous.set(claimKey(fact.project_id, event.user_id), { project_id: fact.project_id, anonymous_id: event.user_id });
      }
    }
  }
  const claimers = await claimersOf(tx, [...anonymous.values()]);
  const fold = new ActivityFold((projectId, userId) => claimers.get(claimKey(projectId, userId)) ?? userId);
  for (const fact of run) fold.add(fact);
  if (!fold.isEmpty) await writeActivity(tx, fold);
}

function applyIdentity(tx: DatabaseTransactionConnection, fact: IdentityFact, seq: number): Promise<void> {
  switch (fact.type) {
    case "UserClaimed":
      return applyClaim(tx, fact, seq);
    case "UserPropertiesChanged":
      return applyProperties(tx, fact, seq);
    case "UserRevenueSynced":
      return applyRevenue(tx, fact, seq);
  }
}

/**
 * Moves each subject's version to the last identity fact of the batch applied on it, in the same
 * transaction as the rows: a decision that reads the version first and the user second never
 * decides on a user older than the version it expects. Nothing in the projector reads versions,
 * so one write per batch serves every fact in it.
 */
async function writeVersions(tx: DatabaseTransactionConnection, versions: Map<string, number>): Promise<void> {
  if (versions.size === 0) return;
  const rows = [...versions].map(([subject, last_seq]) => ({ subject, last_seq }));
  await tx.query(sql.unsafe`
    insert into identity_versions (subject, last_seq)
    select * from json_to_recordset(${JSON.stringify(rows)}::json) as r(subject text, last_seq bigint)
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
    const versions = new Map<string, number>();
    const turns = new LoopTurns();
    for (const source of facts) {
      await turns.after(source.data.length);
      const decoded = decodeIngestFact(source.data);
      if (decoded.kind === "events") {
        run.push(decoded.fact);
        continue;
      }
      if (decoded.kind === "other") continue;
      if (run.length > 0) await writeRun(tx, run);
      run = [];
      await applyIdentity(tx, decoded.fact, source.seq);
      versions.set(source.subject, source.seq);
    }
    if (run.length > 0) await writeRun(tx, run);
    await writeVersions(tx, versions);
  },
};
