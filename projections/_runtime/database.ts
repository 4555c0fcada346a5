import pg from "pg";
import {
  createNumericTypeParser,
  createPool,
  SchemaValidationError,
  type DatabasePool,
  type Interceptor,
} from "slonik";

/** Rows typed with `sql.type(zodObject)` are validated at runtime, as slonik's README recommends. */
const resultParser: Interceptor = {
  name: "result-parser",
  transformRowAsync: async (context, query, row) => {
    if (!context.resultParser) return row;
    const parsed = await context.resultParser.safeParseAsync(row);
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

export async function openPool(databaseUrl: string, maximumPoolSize = 10): Promise<DatabasePool> {
  return createPool(databaseUrl, {
    maximumPoolSize,
    interceptors: [resultParser],
    typeParsers: [bigintAsNumber, createNumericTypeParser(), isoTimestamp],
    connectionTimeout: 5_000,
    idleTimeout: 30_000,
  });
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
