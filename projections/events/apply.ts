import { sql, type DatabaseTransactionConnection } from "slonik";
import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import type { EventsIngested, IngestMode } from "../../domain/ingest/events.ts";
import type { Projection } from "../_runtime/projection.ts";
import { preparePartitions } from "../_runtime/partitions.ts";
import { reassignUser } from "../_runtime/reassign.ts";
import { planImport } from "./import-plan.ts";
import { insertChunk } from "./insert.ts";
import { EVENT_TABLES, partitionNeeds } from "./partitions.ts";
import { planChunks } from "./plan.ts";
import { replaceEvents } from "./replace.ts";

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
    // Each slice's statement sees the rows of the slices before it, so dedup spans the batch. A
    // slice holds facts of one mode; a change of mode or a claim closes it, so stream order holds.
    let slice: EventsIngested[] = [];
    let mode: IngestMode = "ingest";
    let rows = 0;
    const flush = async () => {
      if (slice.length > 0) await (mode === "ingest" ? writeSlice(tx, slice) : importSlice(tx, slice));
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
      if (decoded.fact.mode !== mode) {
        await flush();
        mode = decoded.fact.mode;
      }
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
  await commitWithoutFlush(tx);
  await preparePartitions(tx, EVENT_TABLES, partitionNeeds(chunks.flatMap((chunk) => chunk.parts)));
  for (const chunk of chunks) await insertChunk(tx, chunk);
}

/** Imports update in place: one replace statement for the slice (see replace.ts). */
async function importSlice(tx: DatabaseTransactionConnection, facts: EventsIngested[]): Promise<void> {
  const parts = planImport(facts);
  if (parts.length === 0) return;
  await commitWithoutFlush(tx);
  await preparePartitions(tx, EVENT_TABLES, partitionNeeds(parts));
  await replaceEvents(tx, parts);
}

/**
 * The commit need not wait for the WAL flush: rows and checkpoint commit together, so a database
 * crash that loses the last transactions loses their checkpoint too, and the projector applies
 * those facts again from the stream. Nothing acknowledged to a caller depends on this commit.
 */
async function commitWithoutFlush(tx: DatabaseTransactionConnection): Promise<void> {
  await tx.query(sql.unsafe`set local synchronous_commit = off`);
}
