import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import type { DatabasePool } from "slonik";
import { storedPartitions } from "../projections/_runtime/checkpoint-queries.ts";
import { ensureDatabase, openPool, openReplicaPool } from "../projections/_runtime/database.ts";
import { migrate } from "../projections/_runtime/migrate.ts";
import { ProgressWatcher } from "../projections/_runtime/progress.ts";
import { arrangePartitions } from "../projections/_runtime/partition-layout.ts";
import { ProjectorLocks } from "../projections/_runtime/projector-locks.ts";
import { ProjectorShare } from "../projections/_runtime/projector-share.ts";
import { ProjectorRunner } from "../projections/_runtime/runner.ts";
import { PROJECTIONS, projectionNamed } from "../projections/registry.ts";
import { connectLog, type Log } from "../streams/connection.ts";
import { codeStore } from "../streams/code-store.ts";
import { ensureStreams } from "../streams/ensure.ts";
import { sharedSecret } from "../streams/shared-secret.ts";
import { buildApp } from "./api/app.ts";
import { createDownloadTokens } from "./api/attachments/download-token.ts";
import { SignInCodes } from "./api/auth/codes.ts";
import { createSessionTokens } from "./api/auth/jwt.ts";
import { KeyUsage } from "./api/auth/key-usage.ts";
import { followRevocations } from "./api/auth/revocation-follower.ts";
import { newInstanceState } from "./api/instance-state.ts";
import type { Config } from "./config.ts";
import { createMailer } from "./mail.ts";
import { factSourceOf } from "./projector/fact-source.ts";
import { maintainTables } from "./projector/table-maintenance.ts";
import { openAttachmentStore } from "./storage/attachment-store.ts";
import { startWorker } from "./worker/worker.ts";
import { createMetrics, type Metrics } from "./observability/metrics.ts";
import { exposeMetrics } from "./observability/metrics-exposure.ts";
import { onReconnect } from "../streams/reconnects.ts";

export type Part = "api" | "projector" | "worker";

export type Service = {
  config: Config;
  logger: Logger;
  log: Log;
  pool: DatabasePool;
  app: FastifyInstance | undefined;
  url: string | undefined;
  runners: ProjectorRunner[];
  metrics: Metrics;
  close: () => Promise<void>;
};

/** Shared infrastructure every part needs: logger, database (created and migrated), streams. */
export async function openInfrastructure(config: Config, logger = pino({ level: config.logLevel })) {
  await ensureDatabase(config.databaseUrl);
  await migrate(config.databaseUrl, PROJECTIONS);
  const log = await connectLog(config.natsServers, config.namespace, logger);
  await ensureStreams(log, config.streamReplicas);
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

  const metrics = createMetrics(parts.join("+"));
  const stopCountingReconnects = onReconnect(infra.log, () => metrics.natsReconnects.inc());
  closers.push(async () => stopCountingReconnects());
  // Every read model unless PROJECTORS names some: several processes can then share the
  // projectors (each read model partition's advisory lock still lets only one instance apply it).
  const projections = parts.includes("projector") ? (config.projectors?.map(projectionNamed) ?? PROJECTIONS) : [];
  const locks = new ProjectorLocks(config.databaseUrl, projections.map((projection) => projection.name));
  if (parts.includes("projector")) {
    await arrangePartitions(config.databaseUrl, projections, config.ingestPartitions, infra.logger);
    const share = new ProjectorShare(infra.pool, infra.logger);
    share.start();
    closers.push(async () => share.stop());
    for (const projection of projections) {
      // Runners for every partition this instance may be asked to apply: INGEST_PARTITIONS, or
      // more where the stored layout kept more (a runner for a partition that does not exist waits).
      const count = projection.stream === "INGEST" ? Math.max(config.ingestPartitions, await storedPartitions(infra.pool, projection.name)) : 1;
      for (let partition = 0; partition < count; partition += 1) {
        const labels = { read_model: projection.name, partition: String(partition) };
        const applied = (facts: number, seconds: number) => {
          metrics.projectorBatchSeconds.observe(labels, seconds);
          metrics.projectorFacts.inc(labels, facts);
        };
        const runner = new ProjectorRunner({ ...infra, source: factSourceOf(infra.log), locks, logger: infra.logger, applied, share }, projection, partition);
        runner.start();
        runners.push(runner);
      }
    }
    const maintenance = maintainTables({ pool: infra.pool, locks, logger: infra.logger });
    closers.push(maintenance.stop);
  }
  // Attachment bytes: the API stores and serves them, the worker's cleanup removes them.
  const store = parts.includes("api") || parts.includes("worker") ? await openAttachmentStore(config.attachments) : undefined;
  if (store) closers.push(() => store.close());
  if (parts.includes("worker") && store) {
    const worker = await startWorker({ ...infra, config, store, metrics });
    closers.unshift(worker.stop);
  }
  if (parts.includes("api") && store) {
    // Without JWT_SECRET every instance signs sessions and hashes codes with one generated secret kept in NATS.
    const signingSecret = config.jwtSecret ?? (await sharedSecret(infra.log, "session_signing_key"));
    // With DATABASE_READ_URL the API queries a streaming replica, and read-your-writes waits for
    // the replica's copy of the checkpoints; its only own writes (key last-use times) go to the primary.
    const readPool = config.databaseReadUrl
      ? await openReplicaPool(config.databaseReadUrl, config.databasePoolSize, (message) => infra.logger.warn(message))
      : infra.pool;
    const progress = new ProgressWatcher(config.databaseUrl, infra.logger, config.databaseReadUrl);
    await progress.start();
    const keyUsage = new KeyUsage(infra.pool, infra.logger);
    keyUsage.start();
    const mailer = createMailer(config);
    const state = newInstanceState(readPool);
    const revocations = await followRevocations({ ...infra, progress, keyCache: state.keyCache });
    app = await buildApp({
      ...state,
      config,
      logger: infra.logger,
      log: infra.log,
      pool: readPool,
      progress,
      mailer,
      keyUsage,
      tokens: createSessionTokens(signingSecret),
      codes: new SignInCodes(codeStore(infra.log), signingSecret),
      attachments: store,
      downloadTokens: createDownloadTokens(signingSecret),
      metrics,
    });
    url = await app.listen({ port: config.port, host: config.host });
    const api = app;
    closers.unshift(async () => {
      await api.close();
      await revocations.stop();
      await keyUsage.stop();
      await progress.stop();
      mailer.close();
      if (readPool !== infra.pool) await readPool.end();
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

  return { config, ...infra, app, url, runners, metrics, close };
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function runUntilSignalled(config: Config, parts: Part[]): Promise<void> {
  const service = await startService(config, parts);
  // The API serves /metrics itself; other processes answer their parent or listen on METRICS_PORT.
  const stopExposing = parts.includes("api") ? async () => undefined : await exposeMetrics(service.metrics, { port: config.metricsPort, host: config.host, logger: service.logger });
  service.logger.info({ parts, url: service.url, namespace: config.namespace }, "service started");
  closeOnSignals(service.logger, async () => {
    await stopExposing();
    await service.close();
  });
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
