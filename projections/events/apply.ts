import { sql, type DatabaseTransactionConnection } from "slonik";
import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import type { EventsIngested } from "../../domain/ingest/events.ts";
import type { Projection } from "../_runtime/projection.ts";
import { reassignUser } from "../app-users/reassign.ts";
import { insertChunk } from "./insert.ts";
import { dayOf, monthOf, preparePartitions } from "./partitions.ts";
import { planChunks } from "./plan.ts";

/** Rows per insert statement: large enough to amortize a round trip, small enough to keep memory flat. */
const ROWS_PER_STATEMENT = 5_000;

/**
 * The `events` read model, built from the INGEST stream. Facts per transaction are capped lower
 * than the runtime's default: an ingest fact holds up to 100 events, and a smaller transaction
 * keeps the time from acknowledgement to visibility short under load.
 */
export const eventsProjection: Projection = {
  name: "events",
  stream: "INGEST",
  migrationsDir: new URL("./migrations/", import.meta.url),
  maxBatch: 200,
  apply: async (tx, facts) => {
    // Decoded and written a slice at a time: the API shares this process in the embedded setup, and
    // parsing a whole batch (several MB of JSON) at once would hold its requests for tens of ms.
    // Each slice's statement sees the rows of the slices before it, so dedup spans the batch.
    let slice: EventsIngested[] = [];
    let rows = 0;
    const flush = async () => {
      if (slice.length > 0) await writeSlice(tx, slice);
      slice = [];
      rows = 0;
    };
    for (const fact of facts) {
      const decoded = decodeIngestFact(fact.data);
      if (decoded.kind === "identity") {
        // A claim moves the anonymous id's events to the claiming user, exactly between the events
        // that came before it on the stream and those after.
        if (decoded.fact.type !== "UserClaimed") continue;
        await flush();
        await reassignUser(tx, "events", decoded.fact);
        continue;
      }
      if (decoded.kind !== "events") continue;
      // Update-in-place semantics for imports are not built yet; refusing parks the fact, and a
      // replay after that work applies it, instead of storing it with the wrong semantics.
      if (decoded.fact.mode !== "ingest") throw new Error(`${decoded.fact.mode} facts are not projected by this version of the events read model`);
      slice.push(decoded.fact);
      rows += decoded.fact.events.length;
      if (rows >= ROWS_PER_STATEMENT) await flush();
    }
    await flush();
  },
};

async function writeSlice(tx: DatabaseTransactionConnection, facts: EventsIngested[]): Promise<void> {
  const chunks = planChunks(facts, ROWS_PER_STATEMENT);
  if (chunks.length === 0) return;
  // The commit need not wait for the WAL flush: rows and checkpoint commit together, so a database
  // crash that loses the last transactions loses their checkpoint too, and the projector applies
  // those facts again from the stream. Nothing acknowledged to an SDK depends on this commit.
  await tx.query(sql.unsafe`set local synchronous_commit = off`);
  const months = new Set<string>();
  const days = new Set<string>();
  let maxReceivedMs = 0;
  for (const chunk of chunks) {
    maxReceivedMs = Math.max(maxReceivedMs, chunk.maxReceivedMs);
    for (const part of chunk.parts) {
      days.add(dayOf(Date.parse(part.fact.received_at)));
      for (const event of part.events) months.add(monthOf(event.timestamp));
    }
  }
  await preparePartitions(tx, { months, days, maxReceivedMs });
  for (const chunk of chunks) await insertChunk(tx, chunk);
}
