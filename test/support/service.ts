import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino from "pino";
import { loadConfig, type Config } from "../../apps/config.ts";
import { startService, type Part, type Service } from "../../apps/runtime.ts";

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const TEST_NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

export type TestService = Service & {
  baseUrl: string;
  outbox: string;
  /** Restarts in place with the same database, namespace and outbox (e.g. after a crash). */
  databaseUrl: string;
};

/** A database URL of its own for one test file: parallel files never share rows. */
export function isolatedDatabaseUrl(prefix = "t"): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${prefix}_${randomBytes(6).toString("hex")}`;
  return url.toString();
}

export async function testConfig(overrides: Record<string, string> = {}): Promise<Config> {
  const outbox = await mkdtemp(join(tmpdir(), "outbox-"));
  return loadConfig({
    NODE_ENV: "test",
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: isolatedDatabaseUrl(),
    NATS_URL: TEST_NATS_URL,
    NAMESPACE: `t${randomBytes(5).toString("hex")}`,
    MAIL_OUTBOX_DIR: outbox,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    ...overrides,
  });
}

/** Starts api + projector + worker against the local NATS and Postgres with isolated names. */
export async function startTestService(config?: Config, parts: Part[] = ["api", "projector", "worker"]): Promise<TestService> {
  const resolved = config ?? (await testConfig());
  const service = await startService(resolved, parts, pino({ level: resolved.logLevel }));
  return { ...service, baseUrl: service.url ?? "", outbox: resolved.mailOutboxDir, databaseUrl: resolved.databaseUrl };
}

/** Drops the test's database after the service closed. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await admin.end();
  }
}

/** Deletes the namespace's streams and buckets from the shared NATS server. */
export async function dropStreams(service: Service): Promise<void> {
  const { jsm, names } = service.log;
  for (const name of [names.stream("DOMAIN"), names.stream("INGEST"), `KV_${names.bucket("reservations")}`, `KV_${names.bucket("auth_codes")}`]) {
    await jsm.streams.delete(name).catch(() => undefined);
  }
}

export async function stopTestService(service: TestService): Promise<void> {
  await dropStreams(service).catch(() => undefined);
  await service.close();
  await dropDatabase(service.databaseUrl).catch(() => undefined);
}

type Mail = { to: string; subject: string; text: string };

export async function outboxMessages(outbox: string): Promise<Mail[]> {
  const files = (await readdir(outbox).catch(() => [])).filter((name) => name.endsWith(".json")).sort();
  return Promise.all(files.map(async (name) => JSON.parse(await readFile(join(outbox, name), "utf8")) as Mail));
}

/** The newest sign-in code mailed to `email`. */
export async function latestCode(outbox: string, email: string): Promise<string> {
  const mails = (await outboxMessages(outbox)).filter((mail) => mail.to === email.toLowerCase() && /sign-in code/i.test(mail.subject));
  const code = /\b(\d{6})\b/.exec(mails.at(-1)?.text ?? "")?.[1];
  if (!code) throw new Error(`no code mailed to ${email}`);
  return code;
}
