import { parseArgs } from "node:util";
import pino from "pino";
import { sql } from "slonik";
import { z } from "zod";
import { projectionNamed, PROJECTIONS } from "../../projections/registry.ts";
import { replay } from "../../streams/replay.ts";
import { loadConfig } from "../config.ts";
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
      for (const kind of ["DOMAIN", "INGEST"] as const) {
        const info = await log.jsm.streams.info(log.names.stream(kind));
        console.log(`${info.config.name}: ${info.state.messages} messages, last seq ${info.state.last_seq}, ${info.state.bytes} bytes`);
      }
      const rows = await pool.any(sql.type(z.object({ projection: z.string(), generation: z.number(), stream: z.string(), last_seq: z.number() }))`
        select c.projection, c.generation, c.stream, c.last_seq from projection_checkpoints c
          join projection_generations g on g.projection = c.projection and g.active_generation = c.generation order by 1`);
      for (const row of rows) {
        const head = (await log.jsm.streams.info(log.names.stream(row.stream as "DOMAIN"))).state.last_seq;
        console.log(`read model ${row.projection} (generation ${row.generation}) at ${row.last_seq} of ${row.stream}, lag ${head - row.last_seq}`);
      }
    } else {
      if (!argument) throw new Error(`replay needs a read model name\n${USAGE}`);
      const generation = await replay({ log, pool, databaseUrl: config.databaseUrl, logger }, projectionNamed(argument));
      console.log(`read model ${argument} rebuilt as generation ${generation} and swapped in`);
    }
  } finally {
    await pool.end();
    await log.close();
  }
}

await main().catch(exitOnStartupError);
