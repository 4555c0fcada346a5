import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import type { EventsIngested, IngestMode } from "../../domain/ingest/events.ts";
import type { Projection } from "../_runtime/projection.ts";
import { reassignUser } from "../_runtime/reassign.ts";
import { RetentionCutoffs, type BatchCutoffs } from "../retention/cutoffs.ts";
import { planImport } from "./import-plan.ts";
import { insertStatement } from "./insert.ts";
import { partitionNeeds } from "./partitions.ts";
import { StatementPipeline, type Statement } from "./pipeline.ts";
import { planChunks } from "./plan.ts";
import { replaceStatement } from "./replace.ts";
import { retainedFacts, retainedImport } from "./retained.ts";

/** Rows per insert statement: large enough to amortize a round trip, small enough to keep memory flat. */
const ROWS_PER_STATEMENT = 5_000;

/**
 * Rows of a batch's first slice. Postgres has nothing to do until it arrives, and nothing overlaps
 * its decoding; later slices are decoded while the one before is written.
 */
const FIRST_SLICE_ROWS = 1_000;

/** Events older than their project's event retention are not written (retained.ts), so a replay brings no expired row back. */
const cutoffs = new RetentionCutoffs("events");

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
    // The next slice is decoded while Postgres writes the current one (StatementPipeline). Each
    // statement sees the rows of the ones before it, so dedup spans the batch. A slice holds facts
    // of one mode; a change of mode or a claim closes it, so stream order holds.
    const pipeline = new StatementPipeline(tx);
    const expiry = cutoffs.forBatch(Date.now(), (read) => pipeline.read(read));
    let slice: EventsIngested[] = [];
    let mode: IngestMode = "ingest";
    let rows = 0;
    let sliceRows = FIRST_SLICE_ROWS;
    const flush = async () => {
      if (slice.length > 0) for (const statement of statementsFor(mode, slice, expiry)) await pipeline.send(statement);
      slice = [];
      rows = 0;
      sliceRows = ROWS_PER_STATEMENT;
    };
    for (const fact of facts) {
      const decoded = decodeIngestFact(fact.data);
      if (decoded.kind === "identity") {
        // A claim moves the anonymous id's events to the claiming user, exactly between the events
        // that came before it on the stream and those after.
        if (decoded.fact.type !== "UserClaimed") continue;
        await flush();
        await pipeline.drain();
        await reassignUser(tx, "events", decoded.fact);
        continue;
      }
      if (decoded.kind !== "events") continue;
      await expiry.resolve(decoded.fact.project_id);
      if (decoded.fact.mode !== mode) {
        await flush();
        mode = decoded.fact.mode;
      }
      slice.push(decoded.fact);
      rows += decoded.fact.events.length;
      if (rows >= sliceRows) await flush();
    }
    await flush();
    await pipeline.drain();
  },
};

/**
 * The statements that write a slice, built one at a time as the pipeline takes them. Ingested
 * events are inserted unless duplicates (insert.ts); imports update in place with one replace
 * statement for the slice (replace.ts). Events past their project's retention are left out first.
 */
function* statementsFor(mode: IngestMode, facts: EventsIngested[], expiry: BatchCutoffs): Generator<Statement> {
  if (mode === "import") {
    const { parts, forgotten } = retainedImport(planImport(facts), expiry);
    if (parts.length > 0 || forgotten.length > 0) yield { query: replaceStatement(parts, forgotten), needs: partitionNeeds(parts) };
    return;
  }
  for (const chunk of planChunks(retainedFacts(facts, expiry), ROWS_PER_STATEMENT)) {
    const needs = partitionNeeds(chunk.parts);
    yield { query: insertStatement(chunk, needs.dedupDays.size > 0), needs };
  }
}
