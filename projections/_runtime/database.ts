import { createPgDriverFactory } from "@slonik/pg-driver";
import pg from "pg";
import {
  createNumericTypeParser,
  createPool,
  SchemaValidationError,
  type DatabasePool,
  type DriverClient,
  type DriverFactory,
  type Interceptor,
} from "slonik";

/**
 * Rows typed with `sql.type(zodObject)` are validated at runtime, as slonik's README recommends.
 * Synchronously: no row schema has an asynchronous refinement, and zod's async parser costs two to
 * three times the sync one (about 1 ms against 0.4 ms for a 50-event page on our machines).
 */
const resultParser: Interceptor = {
  name: "result-parser",
  transformRow: (context, query, row) => {
    if (!context.resultParser) return row;
    const parsed = context.resultParser.safeParse(row);
    if (!parsed.success) throw new SchemaValidationError(query, row, parsed.error.issues);
    return parsed.data as typeof row;
  },
};

/** Timestamps leave the database as ISO 8601 strings with millisecond precision, as the API shows them. */
const isoTimestamp = {
  name: "timestamptz",
  parse: (value: string) => new Date(Date.parse(value)).toISOString(),
};

/** Counts and sequences stay far below 2^53, so int8 arrives as a plain number. */
const bigintAsNumber = { name: "int8", parse: (value: string) => Number(value) };

/**
 * slonik 47.3's pg driver, with one repair. When a pooled connection dies in the middle of a query
 * (Postgres restart or failover, pg_terminate_backend), slonik destroys it by first awaiting the
 * query; the query rejects, so destroy() rejects before the client reports "destroy", and the
 * pool keeps the dead client as PENDING_DESTROY forever: it counts against maximumPoolSize and
 * requests queued for a connection are never served. After a crash that hit every busy
 * connection the service hangs until restarted. Here a destroy that fails still ends the
 * client: the pool hears "destroy", drops it and opens a fresh connection when one is needed.
 */
function recoveringPgDriverFactory(): DriverFactory {
  const base = createPgDriverFactory();
  return async (options) => {
    const driver = await base(options);
    return {
      createClient: async (): Promise<DriverClient> => {
        const client = await driver.createClient();
        const destroyListeners = new Set<() => void>();
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          for (const listener of [...destroyListeners]) listener();
        };
        // slonik destroys a client that emitted "error" on its own; settle that destroy here.
        client.on("error", () => void client.destroy().catch(end));
        type Listener = (...args: never[]) => void;
        type Subscribe = (event: string, listener: Listener) => unknown;
        // The event methods are strictly typed overloads; these wrappers only pass calls through.
        const track = (method: Subscribe, remember: boolean) => (event: string, listener: Listener) => {
          if (event === "destroy") {
            if (remember) destroyListeners.add(listener as () => void);
            else destroyListeners.delete(listener as () => void);
          }
          method(event, listener);
          return wrapped;
        };
        const wrapped = {
          ...client,
          destroy: () => client.destroy().catch(end),
          state: () => (ended ? "DESTROYED" : client.state()),
          on: track(client.on as unknown as Subscribe, true),
          off: track(client.off as unknown as Subscribe, false),
          removeListener: track(client.removeListener as unknown as Subscribe, false),
        } as unknown as DriverClient;
        return wrapped;
      },
    };
  };
}

/**
 * No reset when a connection goes back to the pool. slonik's default sends `DISCARD ALL`, a second
 * round trip after every query or transaction taken from the pool. Pooled connections keep no
 * session state: settings are `set local` (set_config's third argument true), snapshots and
 * locks belong to transactions, and what holds session locks or LISTENs has a client of its own
 * (projector-locks.ts, progress.ts, migrate.ts). The one session setting, table maintenance's
 * statement timeout, is put back by its own code before the connection returns.
 */
const keepSession = async (): Promise<void> => undefined;

export async function openPool(databaseUrl: string, maximumPoolSize = 10): Promise<DatabasePool> {
  return createPool(databaseUrl, {
    driverFactory: recoveringPgDriverFactory(),
    maximumPoolSize,
    interceptors: [resultParser],
    typeParsers: [bigintAsNumber, createNumericTypeParser(), isoTimestamp],
    connectionTimeout: 5_000,
    idleTimeout: 30_000,
    resetConnection: keepSession,
  });
}

/**
 * Opens a pool on a streaming replica (DATABASE_READ_URL), waiting up to `waitMs` while the replica
 * does not have the database yet (a database created on the primary reaches the standby only when
 * it replays that commit, late when it applies with a delay) or does not accept connections yet.
 * @throws the last error once `waitMs` has passed, any other error at once
 */
export async function openReplicaPool(databaseUrl: string, maximumPoolSize: number, log: (message: string) => void, waitMs = 60_000): Promise<DatabasePool> {
  const deadline = Date.now() + waitMs;
  for (let told = false; ; told = true) {
    try {
      return await openPool(databaseUrl, maximumPoolSize);
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
      // 3D000: no such database yet; 57P03: the standby is still starting; ECONNREFUSED: not listening yet.
      if (!["3D000", "57P03", "ECONNREFUSED"].includes(code ?? "") || Date.now() > deadline) throw error;
      if (!told) log(`the read replica is not ready (${code}); waiting for it`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Creates the database named in the URL when it does not exist yet (the embedded default). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (name === "" || name === "postgres") return;
  url.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const found = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) {
      try {
        await admin.query(`create database ${pg.escapeIdentifier(name)}`);
      } catch (error) {
        // Two processes starting together may both try; the loser sees duplicate_database.
        if ((error as { code?: string }).code !== "42P04") throw error;
      }
    }
  } finally {
    await admin.end();
  }
}

/** Runs one multi-statement SQL text (a migration file) on a plain driver connection. */
export async function runSqlText(databaseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
