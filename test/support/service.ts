import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino, { type Logger } from "pino";
import { loadConfig, type Config } from "../../apps/config.ts";
import { startService, type Part, type Service } from "../../apps/runtime.ts";
import { client, type Client } from "./http.ts";
import { dropStreams } from "./streams.ts";
import { signIn, type SignedIn } from "./users.ts";

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const TEST_NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

export type TestService = Service & {
  baseUrl: string;
  outbox: string;
  /** Restarts in place with the same database, namespace and outbox (e.g. after a crash). */
  databaseUrl: string;
};

/** A database URL of its own for one test file: parallel files never share rows. */
export function isolatedDatabaseUrl(prefix = "t", adminUrl = ADMIN_DATABASE_URL): string {
  const url = new URL(adminUrl);
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
    // Four services with a dozen projectors each share two cores while the suite runs: a write's
    // read models can take longer than the production default of 10 s to catch up.
    READ_YOUR_WRITES_TIMEOUT_MS: "30000",
    ...overrides,
  });
}

/** The environment that points one of the service's entry points, run as a child process, at `config`'s database, NATS and namespace. */
export function serviceEnv(config: Config): Record<string, string> {
  return {
    NODE_ENV: "test",
    DATABASE_URL: config.databaseUrl,
    NATS_URL: config.natsServers.join(","),
    NAMESPACE: config.namespace,
    MAIL_OUTBOX_DIR: config.mailOutboxDir,
    READ_YOUR_WRITES_TIMEOUT_MS: String(config.readYourWritesTimeoutMs),
    LOG_LEVEL: "warn",
  };
}

/** Starts api + projector + worker against the local NATS and Postgres with isolated names; `logger` lets a test read the log. */
export async function startTestService(config?: Config, parts: Part[] = ["api", "projector", "worker"], logger?: Logger): Promise<TestService> {
  const resolved = config ?? (await testConfig());
  const service = await startService(resolved, parts, logger ?? pino({ level: resolved.logLevel }));
  return { ...service, baseUrl: service.url ?? "", outbox: resolved.mailOutboxDir, databaseUrl: resolved.databaseUrl };
}

/** A started test service (every part) and an HTTP client for it. */
export async function startWithClient(config?: Config): Promise<{ service: TestService; http: Client }> {
  const service = await startTestService(config);
  return { service, http: client(service.baseUrl) };
}

/** A started test service, an HTTP client for it and `owner`, a signed-in user with their default team. */
export async function startWithOwner(config?: Config): Promise<{ service: TestService; http: Client; owner: SignedIn }> {
  const { service, http } = await startWithClient(config);
  return { service, http, owner: await signIn(http, service.outbox) };
}

/** Drops the test's database after the service closed. */
export async function dropDatabase(databaseUrl: string, adminUrl = ADMIN_DATABASE_URL): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await admin.end();
  }
}

export async function stopTestService(service: TestService): Promise<void> {
  await dropStreams(service.log).catch(() => undefined);
  await service.close();
  await dropDatabase(service.databaseUrl).catch(() => undefined);
}
