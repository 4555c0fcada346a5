import { parseArgs } from "node:util";
import pino from "pino";
import { STREAM_KINDS, type StreamKind } from "../../domain/shared/stream-kind.ts";
import { activeCheckpoints } from "../../projections/_runtime/checkpoint-queries.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed, PROJECTIONS } from "../../projections/registry.ts";
import { placementOf } from "../../streams/placement.ts";
import { streamHead, streamState } from "../../streams/stream-head.ts";
import { loadConfig } from "../config.ts";
import { factSourceOf } from "../projector/fact-source.ts";
import { openInfrastructure } from "../runtime.ts";
import { exitOnStartupError } from "../startup.ts";
import { exportEvents } from "./export-events.ts";
import { importEvents } from "./import-events.ts";
import { serviceTarget } from "./service-client.ts";

const USAGE = `usage: npm run cli -- <command>
  migrate                 create the database, streams and read-model tables
  streams                 show streams, read models and their lag
  replay <read-model>     rebuild a read model from sequence 1 and swap it in (known: ${PROJECTIONS.map((p) => p.name).join(", ")})
  export --app-id <id> | --project-id <id> [--since 30d] [--until <time>] [--data-mode all|production|development] [--out <file.ndjson>]
                          a running service's events as NDJSON (stdout without --out), with an agent key (events:read)
  import <file.ndjson>    events into the app of an import key, 1,000 a request; a re-run resumes where the last stopped
  export and import talk to the service at --url (or SERVICE_URL, default http://127.0.0.1:$PORT) with --key (or API_KEY)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  strict: true,
  options: {
    url: { type: "string" },
    key: { type: "string" },
    "app-id": { type: "string" },
    "project-id": { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    "data-mode": { type: "string" },
    out: { type: "string" },
  },
});
const [command, argument] = positionals;

/** export and import are clients of a running service: no database or stream of their own. */
async function runClientCommand(): Promise<void> {
  const target = serviceTarget(values);
  if (command === "export") {
    const { events, seconds } = await exportEvents(target, {
      appId: values["app-id"],
      projectId: values["project-id"],
      since: values.since,
      until: values.until,
      dataMode: values["data-mode"],
      out: values.out,
    });
    console.error(`exported ${events} events in ${seconds.toFixed(1)} s${values.out ? ` to ${values.out}` : ""}`);
    return;
  }
  if (!argument) throw new Error(`import needs a file\n${USAGE}`);
  const summary = await importEvents(target, argument);
  const resumed = summary.skipped > 0 ? ` (resumed after line ${summary.skipped})` : "";
  console.error(
    `imported ${summary.lines} events in ${summary.seconds.toFixed(1)} s${resumed}: ${summary.accepted} new, ${summary.updated} updated, ${summary.rejected} rejected`,
  );
  for (const error of summary.errors) console.error(`  ${error}`);
}

async function main(): Promise<void> {
  if (command === "export" || command === "import") return runClientCommand();
  if (!command || !["migrate", "streams", "replay"].includes(command)) {
    console.error(USAGE);
    process.exit(2);
  }
  const config = loadConfig();
  const logger = pino({ level: process.env.LOG_LEVEL ?? "warn" });
  const { log, pool } = await openInfrastructure(config, logger);
  try {
    if (command === "migrate") {
      console.log("database, streams and read models are up to date");
    } else if (command === "streams") {
      for (const kind of STREAM_KINDS) {
        const [state, placement] = await Promise.all([streamState(log, kind), placementOf(log, { stream: kind })]);
        const copies = placement.leader === undefined ? `${placement.replicas} replica(s)` : `${placement.replicas} replica(s), leader ${placement.leader}`;
        console.log(`${state.name}: ${state.messages} messages, last seq ${state.lastSeq}, ${state.bytes} bytes, ${copies}`);
      }
      for (const row of await activeCheckpoints(pool)) {
        const head = await streamHead(log, row.stream as StreamKind);
        const part = row.partitions > 1 ? ` partition ${row.partition} of ${row.partitions}` : "";
        console.log(`read model ${row.projection}${part} (generation ${row.generation}) at ${row.last_seq} of ${row.stream}, lag ${head - row.last_seq}`);
      }
    } else {
      if (!argument) throw new Error(`replay needs a read model name\n${USAGE}`);
      const generation = await replay({ source: factSourceOf(log), pool, databaseUrl: config.databaseUrl, logger, partitions: config.ingestPartitions }, projectionNamed(argument));
      console.log(`read model ${argument} rebuilt as generation ${generation} and swapped in`);
    }
  } finally {
    await pool.end();
    await log.close();
  }
}

await main().catch((error: unknown) => {
  if (command === "export" || command === "import") {
    console.error(`${command} failed: ${(error as Error).message}`);
    process.exit(1);
  }
  exitOnStartupError(error);
});
