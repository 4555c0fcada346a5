import { parseArgs } from "node:util";
import pino from "pino";
import { STREAM_KINDS, type StreamKind } from "../../domain/shared/stream-kind.ts";
import { activeCheckpoints } from "../../projections/_runtime/checkpoint-queries.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed, PROJECTIONS } from "../../projections/registry.ts";
import { streamHead, streamState } from "../../streams/stream-head.ts";
import { loadConfig } from "../config.ts";
import { factSourceOf } from "../projector/fact-source.ts";
import { openInfrastructure } from "../runtime.ts";
import { exitOnStartupError } from "../startup.ts";

const USAGE = `usage: npm run cli -- <command>
  migrate                 create the database, streams and read-model tables
  streams                 show streams, read models and their lag
  replay <read-model>     rebuild a read model from sequence 1 and swap it in (known: ${PROJECTIONS.map((p) => p.name).join(", ")})`;

const { positionals } = parseArgs({ allowPositionals: true, strict: true });
const [command, argument] = positionals;

async function main(): Promise<void> {
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
        const state = await streamState(log, kind);
        console.log(`${state.name}: ${state.messages} messages, last seq ${state.lastSeq}, ${state.bytes} bytes`);
      }
      for (const row of await activeCheckpoints(pool)) {
        const head = await streamHead(log, row.stream as StreamKind);
        console.log(`read model ${row.projection} (generation ${row.generation}) at ${row.last_seq} of ${row.stream}, lag ${head - row.last_seq}`);
      }
    } else {
      if (!argument) throw new Error(`replay needs a read model name\n${USAGE}`);
      const generation = await replay({ source: factSourceOf(log), pool, databaseUrl: config.databaseUrl, logger }, projectionNamed(argument));
      console.log(`read model ${argument} rebuilt as generation ${generation} and swapped in`);
    }
  } finally {
    await pool.end();
    await log.close();
  }
}

await main().catch(exitOnStartupError);
