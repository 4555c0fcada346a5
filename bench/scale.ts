import { randomBytes } from "node:crypto";
import pg from "pg";
import pino from "pino";
import { connectLog, type Log } from "../streams/connection.ts";
import { freePort } from "../test/support/processes.ts";
import { dropDatabase, isolatedDatabaseUrl } from "../test/support/service.ts";
import { dropStreams, streamHead } from "../test/support/streams.ts";
import { catchUpSeconds } from "./checkpoints.ts";
import { createFleet, type Fleet } from "./fleet.ts";
import { runIngestLoad, type ClientKey } from "./ingest-load.ts";
import { seedHistory } from "./seed.ts";
import { startBenchService, type BenchService } from "./service-process.ts";
import { round } from "./stats.ts";

export type ScaleFigures = {
  events: number;
  projects: number;
  /** Every INGEST read model at the head, per partition count: events/s and the ratio to one partition. */
  partitions: { partitions: number; seconds: number; events_per_second: number; ratio_to_one: number }[];
  /** Acknowledged ingest with one and with two API instances, the clients and keys split between them. */
  api_instances: { instances: number; events_per_second: number; p99_ms: number; failed: number; ratio_to_one: number }[];
};

type Settings = { admin: string; nats: string; outbox: string; events: number; projects: number; clients: number; ingestSeconds: number; partitionCounts: number[] };

/** A fresh service (database and namespace of its own) with `INGEST_PARTITIONS=partitions`, and `projects` teams of 4 apps each. */
async function freshService(settings: Settings, partitions: number) {
  const namespace = `bscale${randomBytes(4).toString("hex")}`;
  const databaseUrl = isolatedDatabaseUrl("benchscale", settings.admin);
  const env = { DATABASE_URL: databaseUrl, NATS_URL: settings.nats, NAMESPACE: namespace, MAIL_OUTBOX_DIR: settings.outbox, INGEST_PARTITIONS: String(partitions) };
  const service = await startBenchService(env, await freePort());
  const streams = await connectLog([settings.nats], namespace, pino({ level: "warn" }));
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const fleets: Fleet[] = [];
  for (let index = 0; index < settings.projects; index += 1) fleets.push(await createFleet(service.baseUrl, settings.outbox, 4));
  const close = async (extra: BenchService[] = []) => {
    for (const other of extra) await other.stop();
    await service.stop();
    await db.end();
    await dropStreams(streams).catch(() => undefined);
    await streams.close();
    await dropDatabase(databaseUrl, settings.admin).catch(() => undefined);
  };
  return { env, service, streams, db, fleets, close };
}

/** Seconds until every INGEST read model has applied `events` of history appended straight to INGEST, spread over the fleets' projects. */
async function drainSeconds(streams: Log, db: pg.Pool, fleets: Fleet[], events: number): Promise<number> {
  const started = performance.now();
  await Promise.all(fleets.map((fleet) => seedHistory(streams, fleet, Math.ceil(events / fleets.length))));
  await catchUpSeconds(db, await streamHead(streams, "INGEST"), 1_800_000);
  return (performance.now() - started) / 1000;
}

/**
 * Issue 20's figures, side by side: projection of a backlog with 1, 2 and 4 partitions per INGEST
 * read model (the same `npm start` service, INGEST_PARTITIONS set), and ingest through one and two
 * API instances. A partition is a project's facts, so the backlog is spread over several projects,
 * as a team's would be. Each count gets a fresh database and namespace.
 */
export async function runScale(settings: Settings, log: (line: string) => void): Promise<ScaleFigures> {
  const partitions: ScaleFigures["partitions"] = [];
  for (const count of settings.partitionCounts) {
    const fresh = await freshService(settings, count);
    try {
      const seconds = await drainSeconds(fresh.streams, fresh.db, fresh.fleets, settings.events);
      const rate = Math.round(settings.events / seconds);
      partitions.push({ partitions: count, seconds: round(seconds), events_per_second: rate, ratio_to_one: round(rate / (partitions[0]?.events_per_second ?? rate)) });
      log(`scale: ${count} partition(s): every INGEST read model at the head after ${round(seconds)} s, ${rate} events/s`);
    } finally {
      await fresh.close();
    }
  }

  const fresh = await freshService(settings, 1);
  const second: BenchService[] = [];
  const apiInstances: ScaleFigures["api_instances"] = [];
  try {
    const keys: ClientKey[] = fresh.fleets.flatMap((fleet) => fleet.apps.map((app) => ({ clientKey: app.clientKey, bundleId: app.bundleId })));
    await runIngestLoad(fresh.service.baseUrl, keys, settings.clients, 3); // warm-up
    const one = await runIngestLoad(fresh.service.baseUrl, keys, settings.clients, settings.ingestSeconds);
    apiInstances.push({ instances: 1, events_per_second: one.events_per_second, p99_ms: one.latency.p99_ms, failed: one.failed, ratio_to_one: 1 });
    log(`scale: 1 API instance: ${one.events_per_second} events/s acknowledged, p99 ${one.latency.p99_ms} ms`);

    second.push(await startBenchService(fresh.env, await freePort(), "apps/api/main.ts"));
    const urls = [fresh.service.baseUrl, second[0]!.baseUrl];
    const halves = urls.map((_, index) => keys.filter((_, key) => key % urls.length === index));
    await Promise.all(urls.map((url, index) => runIngestLoad(url, halves[index]!, settings.clients / 2, 3)));
    const both = await Promise.all(urls.map((url, index) => runIngestLoad(url, halves[index]!, settings.clients / 2, settings.ingestSeconds)));
    const rate = both.reduce((sum, figures) => sum + figures.events_per_second, 0);
    const p99 = Math.max(...both.map((figures) => figures.latency.p99_ms));
    apiInstances.push({ instances: 2, events_per_second: rate, p99_ms: p99, failed: both.reduce((sum, figures) => sum + figures.failed, 0), ratio_to_one: round(rate / one.events_per_second) });
    log(`scale: 2 API instances: ${rate} events/s acknowledged, p99 ${p99} ms`);
  } finally {
    await fresh.close(second);
  }
  return { events: settings.events, projects: settings.projects, partitions, api_instances: apiInstances };
}
