import pg from "pg";
import { sql, type DatabaseTransactionConnection } from "slonik";
import { ensureDatabase, openPool } from "../../projections/_runtime/database.ts";
import { migrate, migrateSchema } from "../../projections/_runtime/migrate.ts";
import { generationSchema, type Fact, type Projection } from "../../projections/_runtime/projection.ts";
import { directoryProjection } from "../../projections/directory/apply.ts";
import { dropDatabase, isolatedDatabaseUrl } from "./service.ts";

/** A fact to apply: a payload (sent as JSON on a default subject) or a message made with `onSubject`. */
export type GivenFact = object | Omit<Fact, "seq">;

/** A message on `subject`, for read models that key on it (aggregate and identity versions). */
export const onSubject = (subject: string, payload: object): Omit<Fact, "seq"> => ({ subject, data: new TextEncoder().encode(JSON.stringify(payload)) });

const isMessage = (given: GivenFact): given is Omit<Fact, "seq"> => "data" in given && given.data instanceof Uint8Array;

/** One read model's tables in a generation schema of their own, with the facts given so far. */
export type ProjectedReadModel = {
  schema: string;
  /** Applies more facts after the earlier ones, in one transaction, as one projector batch. */
  apply(...facts: GivenFact[]): Promise<void>;
  /** Every row of `table`, ordered by `orderBy` columns or else by the whole row's text. */
  rows(table: string, ...orderBy: string[]): Promise<Record<string, unknown>[]>;
  /** Runs `work` with this generation first on the search path, so the read model's own queries read it. */
  read<T>(work: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T>;
};

export type ReadModelDatabase = {
  /** A fresh generation schema of `projection`, migrated, with `facts` applied. */
  given(projection: Projection, ...facts: GivenFact[]): Promise<ProjectedReadModel>;
  /**
   * Applies DOMAIN facts to the directory the database's public views show, as one batch: what
   * every read model reads of it, such as the INGEST read models the retention of projects.
   */
  directory(...facts: GivenFact[]): Promise<void>;
  drop(): Promise<void>;
};

/**
 * A database of its own for one test file's read-model tests (create it in beforeAll, drop it in
 * afterAll). Each `given` builds a new generation schema, so tests in the file never share rows.
 * Facts go straight to the projection's `apply` inside a transaction whose search path is the
 * generation schema, as the projector runs a batch, but without checkpoint or parking: a fact
 * the read model cannot apply fails the test instead of being set aside.
 */
export async function readModelDatabase(): Promise<ReadModelDatabase> {
  const databaseUrl = isolatedDatabaseUrl("readmodel");
  await ensureDatabase(databaseUrl);
  // The runtime tables (schema_migrations among them) and the directory's first generation behind
  // the public views, as in the service: the INGEST read models read project retention from it.
  await migrate(databaseUrl, [directoryProjection]);
  const pool = await openPool(databaseUrl, 2);
  // The directory's generation 1 is the one behind the views; `given` builds the next ones.
  const generations = new Map<string, number>([[directoryProjection.name, 1]]);
  let directorySeq = 0;

  const inSchema = <T>(schema: string, work: (tx: DatabaseTransactionConnection) => Promise<T>) =>
    pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`select set_config('search_path', ${`${schema}, public`}, true)`);
      return work(tx);
    });

  async function given(projection: Projection, ...facts: GivenFact[]): Promise<ProjectedReadModel> {
    const generation = (generations.get(projection.name) ?? 0) + 1;
    generations.set(projection.name, generation);
    const schema = generationSchema(projection.name, generation);
    // Migrations are scripts of many statements, which slonik does not run: through pg, as the migrator does.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await migrateSchema(client, projection, schema);
    } finally {
      await client.end();
    }
    const defaultSubject = `given.${projection.stream.toLowerCase()}`;
    let seq = 0;
    const model: ProjectedReadModel = {
      schema,
      apply: async (...more) => {
        const batch = more.map((fact): Fact => ({ seq: ++seq, ...(isMessage(fact) ? fact : onSubject(defaultSubject, fact)) }));
        if (batch.length > 0) await inSchema(schema, (tx) => projection.apply(tx, batch));
      },
      rows: (table, ...orderBy) => {
        const order = orderBy.length > 0 ? sql.join(orderBy.map((column) => sql.identifier([column])), sql.fragment`, `) : sql.fragment`t::text`;
        return inSchema(schema, async (tx) => [...(await tx.any(sql.unsafe`select * from ${sql.identifier([schema, table])} t order by ${order}`))]);
      },
      read: (work) => inSchema(schema, work),
    };
    await model.apply(...facts);
    return model;
  }

  return {
    given,
    directory: async (...facts) => {
      const batch = facts.map((fact): Fact => ({ seq: ++directorySeq, ...(isMessage(fact) ? fact : onSubject("given.domain", fact)) }));
      await inSchema(generationSchema(directoryProjection.name, 1), (tx) => directoryProjection.apply(tx, batch));
    },
    drop: async () => {
      await pool.end();
      await dropDatabase(databaseUrl);
    },
  };
}
