import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import type { DatabasePool } from "slonik";
import { ensureDatabase, openPool } from "../projections/_runtime/database.ts";
import { migrate } from "../projections/_runtime/migrate.ts";
import { ProgressWatcher } from "../projections/_runtime/progress.ts";
import { PROJECTIONS } from "../projections/registry.ts";
import { connectLog, type Log } from "../streams/connection.ts";
import { ensureStreams } from "../streams/ensure.ts";
import { ProjectorRunner } from "../streams/project.ts";
import { ProjectorLocks } from "../streams/projector-locks.ts";
import { buildApp } from "./api/app.ts";
import { createSessionTokens } from "./api/auth/jwt.ts";
import { KeyUsage } from "./api/auth/key-usage.ts";
import type { Config } from "./config.ts";
import { createMailer } from "./mail.ts";
import { startInvitationMailer } from "./worker/invitation-mailer.ts";
import { Scheduler } from "./worker/scheduler.ts";

export type Part = "api" | "projector" | "worker";

export type Service = {
  config: Config;
  logger: Logger;
  log: Log;
  pool: DatabasePool;
  app: FastifyInstance | undefined;
  url: string | undefined;
  runners: ProjectorRunner[];
  close: () => Promise<void>;
};

/** Shared infrastructure every part needs: logger, database (created and migrated), streams. */
export async function openInfrastructure(config: Config, logger = pino({ level: config.logLevel })) {
  await ensureDatabase(config.databaseUrl);
  await migrate(config.databaseUrl, PROJECTIONS);
  const log = await connectLog(config.natsServers, config.namespace, logger);
  await ensureStreams(log);
  const pool = await openPool(config.databaseUrl, config.databasePoolSize);
  return { logger, log, pool };
}

/**
 * Starts the chosen parts in this process. Closing drains in order: stop taking requests and
 * finish the ones in flight, finish the projector batches in flight, then release connections.
 */
export async function startService(config: Config, parts: Part[], logger?: Logger): Promise<Service> {
  const infra = await openInfrastructure(config, logger);
  const closers: (() => Promise<void>)[] = [];
  const runners: ProjectorRunner[] = [];
  let app: FastifyInstance | undefined;
  let url: string | undefined;

  const locks = new ProjectorLocks(config.databaseUrl);
  if (parts.includes("projector")) {
    for (const projection of PROJECTIONS) {
      const runner = new ProjectorRunner({ ...infra, locks, logger: infra.logger }, projection);
      runner.start();
      runners.push(runner);
    }
  }
  if (parts.includes("worker")) {
    const scheduler = new Scheduler([], infra.logger);
    scheduler.start();
    const mailer = createMailer(config);
    const invitationMailer = startInvitationMailer({ ...infra, mailer, publicBaseUrl: config.publicBaseUrl });
    closers.push(async () => {
      await scheduler.stop();
      await invitationMailer.stop();
      mailer.close();
    });
  }
  if (parts.includes("api")) {
    const progress = new ProgressWatcher(config.databaseUrl, infra.logger);
    await progress.start();
    const keyUsage = new KeyUsage(infra.pool, infra.logger);
    keyUsage.start();
    const mailer = createMailer(config);
    app = await buildApp({
      config,
      logger: infra.logger,
      log: infra.log,
      pool: infra.pool,
      progress,
      mailer,
      keyUsage,
      tokens: createSessionTokens(config.jwtSecret),
    });
    url = await app.listen({ port: config.port, host: config.host });
    const api = app;
    closers.unshift(async () => {
      await api.close();
      await keyUsage.stop();
      await progress.stop();
      mailer.close();
    });
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const closer of closers) await closer();
      await Promise.all(runners.map((runner) => runner.stop()));
      await locks.close();
      await infra.pool.end();
      await infra.log.close();
    })());

  return { config, ...infra, app, url, runners, close };
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function runUntilSignalled(config: Config, parts: Part[]): Promise<void> {
  const service = await startService(config, parts);
  service.logger.info({ parts, url: service.url, namespace: config.namespace }, "service started");
  closeOnSignals(service.logger, service.close);
}

/** On SIGTERM or SIGINT: `close`, then exit; exit 1 if closing takes longer than 30 s. */
export function closeOnSignals(logger: Logger, close: () => Promise<unknown>): void {
  const shutdown = async (signal: string) => {
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 30_000);
    await close();
    clearTimeout(force);
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
