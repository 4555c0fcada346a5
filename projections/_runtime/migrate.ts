import { readdir, readFile } from "node:fs/promises";
import pg from "pg";
import { generationSchema, type Projection } from "./projection.ts";

/** Serializes the processes that change schemas or checkpoint layouts at start. */
export const MIGRATION_LOCK = 7_401_001;

async function migrationFiles(projection: Projection): Promise<{ name: string; text: string }[]> {
  const names = (await readdir(projection.migrationsDir)).filter((name) => /^\d+_.+\.sql$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => ({ name, text: await readFile(new URL(name, projection.migrationsDir), "utf8") })),
  );
}

/** Applies the projection's pending migrations inside `schema` (created if missing). */
export async function migrateSchema(client: pg.ClientBase, projection: Projection, schema: string): Promise<void> {
  await client.query(`create schema if not exists ${pg.escapeIdentifier(schema)}`);
  const applied = new Set(
    (await client.query<{ migration: string }>("select migration from schema_migrations where schema_name = $1", [schema])).rows.map(
      (row) => row.migration,
    ),
  );
  for (const file of await migrationFiles(projection)) {
    if (applied.has(file.name)) continue;
    await client.query("begin");
    try {
      await client.query(`set local search_path to ${pg.escapeIdentifier(schema)}, public`);
      await client.query(file.text);
      await client.query("insert into schema_migrations (schema_name, migration) values ($1, $2)", [schema, file.name]);
      await client.query("commit");
    } catch (error) {
      await client.query("rollback");
      throw new Error(`migration ${schema}/${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** Points the public views at the tables of `schema`: the API always reads `public.<table>`. */
export async function pointViewsAt(client: pg.ClientBase, schema: string): Promise<void> {
  const tables = await client.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind in ('r', 'p') and not c.relispartition order by 1`,
    [schema],
  );
  for (const { name } of tables.rows) {
    const view = pg.escapeIdentifier(name);
    await client.query(`create or replace view public.${view} as select * from ${pg.escapeIdentifier(schema)}.${view}`);
  }
}

/**
 * Creates the runtime tables and, for every projection, its first generation; applies pending
 * migrations to the active generation and refreshes its views. Serialized by an advisory lock,
 * so processes starting together do not race.
 */
export async function migrate(databaseUrl: string, projections: Projection[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(await readFile(new URL("./runtime.sql", import.meta.url), "utf8"));
    for (const projection of projections) {
      await client.query(
        `insert into projection_generations (projection, active_generation) values ($1, 1) on conflict do nothing`,
        [projection.name],
      );
      const { rows } = await client.query<{ active_generation: number }>(
        "select active_generation from projection_generations where projection = $1",
        [projection.name],
      );
      const generation = rows[0]!.active_generation;
      await client.query(
        `insert into projection_checkpoints (projection, generation, stream) values ($1, $2, $3) on conflict do nothing`,
        [projection.name, generation, projection.stream],
      );
      const schema = generationSchema(projection.name, generation);
      await migrateSchema(client, projection, schema);
      await pointViewsAt(client, schema);
    }
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}
