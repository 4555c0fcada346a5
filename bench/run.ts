import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino from "pino";
import { openPool } from "../projections/_runtime/database.ts";
import { ingestProjections } from "../projections/registry.ts";
import { connectLog } from "../streams/connection.ts";
import { freePort, waitUntil } from "../test/support/processes.ts";
import { dropDatabase, isolatedDatabaseUrl } from "../test/support/service.ts";
import { dropStreams, streamHead } from "../test/support/streams.ts";
import { runAdsBench, startBenchAdNetwork } from "./ads.ts";
import { runAnalyticsBench } from "./analytics.ts";
import { measureAttachmentTransfer } from "./attachments.ts";
import { call, createFleet } from "./fleet.ts";
import { closeConnections } from "./http-client.ts";
import { runIngestLoad } from "./ingest-load.ts";
import { measureIssueLatency } from "./issues.ts";
import { measureLag } from "./lag.ts";
import { measureQuery } from "./queries.ts";
import { seedHistory } from "./seed.ts";
import { startBenchService } from "./service-process.ts";
import { round } from "./stats.ts";

/**
 * `npm run bench`: starts the service (api + projector + worker, one process) against the local
 * NATS and Postgres under a fresh database and namespace, drives it over HTTP like a fleet of SDKs,
 * and prints rates and latencies. Figures go to bench/results/<time>.json for comparison.
 */

const settings = {
  clients: Number(process.env.BENCH_CLIENTS ?? 8),
  apps: Number(process.env.BENCH_APPS ?? 64),
  ingestSeconds: Number(process.env.BENCH_SECONDS ?? 20),
  lagRate: Number(process.env.BENCH_LAG_RATE ?? 5_000),
  /** Error events a second in the error-to-issue phase, amid ordinary ingest at `lagRate`. */
  issueRate: Number(process.env.BENCH_ISSUE_RATE ?? 1_000),
  tableEvents: Number(process.env.BENCH_TABLE_EVENTS ?? 5_000_000),
  analytics: process.env.BENCH_ANALYTICS !== "0",
  /** BENCH_ONLY=attachments runs the attachment transfers alone (a minute instead of ten); BENCH_ONLY=issues the error-to-issue phase alone. */
  only: process.env.BENCH_ONLY,
  admin: process.env.BENCH_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  nats: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
};

const suffix = randomBytes(4).toString("hex");
const namespace = `bench${suffix}`;
const databaseUrl = isolatedDatabaseUrl("bench", settings.admin);
const log = (line: string) => console.log(`[bench] ${line}`);

async function eventsProjected(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ count: string }>("select count(*) from events");
  return Number(rows[0]!.count);
}

async function projectorAt(db: pg.Pool, projection = "events"): Promise<number> {
  const { rows } = await db.query<{ last_seq: string }>(
    `select c.last_seq from projection_checkpoints c
       join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
      where c.projection = $1`,
    [projection],
  );
  return Number(rows[0]?.last_seq ?? 0);
}

/** Seconds from now until every read model built from INGEST has applied the stream up to `head`, per read model. */
async function catchUpSeconds(db: pg.Pool, head: number): Promise<Record<string, number>> {
  const started = performance.now();
  const seconds: Record<string, number> = {};
  await Promise.all(
    ingestProjections().map(async (projection) => {
      await waitUntil(`the ${projection} projector to catch up`, async () => (await projectorAt(db, projection)) >= head, 600_000, 200);
      seconds[projection] = round((performance.now() - started) / 1000);
    }),
  );
  return seconds;
}

async function main() {
  const outbox = await mkdtemp(join(tmpdir(), "bench-outbox-"));
  // The ads phase reads campaigns from a local stand-in for the ad network.
  const adNetwork = await startBenchAdNetwork();
  const env = { DATABASE_URL: databaseUrl, NATS_URL: settings.nats, NAMESPACE: namespace, MAIL_OUTBOX_DIR: outbox, ...adNetwork.env };
  const service = await startBenchService(env, await freePort());
  const streams = await connectLog([settings.nats], namespace, pino({ level: "warn" }));
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const results: Record<string, unknown> = { at: new Date().toISOString(), settings };
  try {
    const fleet = await createFleet(service.baseUrl, outbox, settings.apps);
    const keys = fleet.apps.map((app) => ({ clientKey: app.clientKey, bundleId: app.bundleId }));
    log(`fleet: ${fleet.apps.length} apps with their client keys`);

    const issuePhase = async () => {
      const issues = await measureIssueLatency(service.baseUrl, databaseUrl, fleet.apps, settings.issueRate, settings.lagRate, 15);
      results.error_to_issue = issues;
      log(
        `error to issue at ${issues.error_events_per_second} error events/s (${issues.new_issues_per_second} new issues/s) amid ${issues.events_per_second} events/s: ` +
          `p50 ${issues.latency.p50_ms} ms, p99 ${issues.latency.p99_ms} ms (${issues.failed} failed${issues.failed ? ` ${JSON.stringify(issues.failures)}` : ""})`,
      );
    };
    if (settings.only === "issues") return await issuePhase().then(() => writeResults(results));

    // BENCH_ONLY=ads: the ads routes over BENCH_ADS_USERS (200,000) attributed users, alone.
    const adsPhase = async () => {
      results.ads = await runAdsBench({ baseUrl: service.baseUrl, databaseUrl, streams, token: fleet.token, teamId: fleet.teamId, users: Number(process.env.BENCH_ADS_USERS ?? 200_000), log });
    };
    if (settings.only === "ads") return await adsPhase().then(() => writeResults(results));

    // First, while the service is at rest: its resident set then shows what a transfer costs.
    const transfers = [];
    for (const megabytes of (process.env.BENCH_ATTACHMENT_MB ?? "5,50,200").split(",").map(Number)) {
      const transfer = await measureAttachmentTransfer({ baseUrl: service.baseUrl, ...keys[0]!, token: fleet.token, megabytes, rssMb: service.rssMb });
      transfers.push(transfer);
      log(
        `attachment ${megabytes} MB (filesystem): upload ${transfer.upload_mb_per_second} MB/s, download ${transfer.download_mb_per_second} MB/s, ` +
          `API RSS ${transfer.service_rss_before_mb} MB before, ${transfer.service_rss_peak_mb} MB at most during the transfers`,
      );
    }
    results.attachments = transfers;
    if (settings.only === "attachments") return await writeResults(results);

    await runIngestLoad(service.baseUrl, keys, settings.clients, 3); // warm-up: JIT, pools, caches
    const ingest = await runIngestLoad(service.baseUrl, keys, settings.clients, settings.ingestSeconds);
    results.ingest = ingest;
    log(`ingest: ${ingest.events_per_second} events/s acknowledged, p50 ${ingest.latency.p50_ms} ms, p99 ${ingest.latency.p99_ms} ms (${ingest.clients} clients, ${ingest.rate_limited} rate limited, ${ingest.failed} failed)`);

    // Lag is measured at a steady 5,000 events/s, once every read model has applied the burst
    // above; how long each took to catch up with it is reported on its own.
    const catchUp = await catchUpSeconds(db, await streamHead(streams, "INGEST"));
    results.catch_up_after_ingest_seconds = catchUp;
    log(`caught up with the ingest phase after: ${Object.entries(catchUp).map(([name, seconds]) => `${name} ${seconds} s`).join(", ")}`);

    const lag = await measureLag(service.baseUrl, databaseUrl, fleet.apps, settings.lagRate, 15);
    results.lag = lag;
    log(`lag at ${lag.events_per_second} events/s: p50 ${lag.lag.p50_ms} ms, p99 ${lag.lag.p99_ms} ms (${lag.failed} failed)`);

    await issuePhase();
    // The drain below starts from rest: every read model first applies what that phase sent.
    results.catch_up_after_issue_phase_seconds = await catchUpSeconds(db, await streamHead(streams, "INGEST"));

    const backlog = Math.max(0, settings.tableEvents - (await eventsProjected(db)));
    const drainStarted = performance.now();
    await seedHistory(streams, fleet, backlog);
    const published = performance.now();
    const seededHead = await streamHead(streams, "INGEST");
    await waitUntil("the projector to drain the backlog", async () => (await projectorAt(db)) >= seededHead, 1_800_000, 250);
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    const projection = {
      events: backlog,
      publish_seconds: round((published - drainStarted) / 1000),
      drain_seconds: round(drainSeconds),
      events_per_second: Math.round(backlog / drainSeconds),
    };
    results.projection = projection;
    const tableSize = await eventsProjected(db);
    // Autovacuum analyzes partitions within about a minute of a bulk load; the query figures are
    // for that steady state, not for the minute when the planner has no statistics yet.
    const { rows: active } = await db.query<{ generation: number }>("select active_generation as generation from projection_generations where projection = 'events'");
    await db.query(`analyze rm_events_g${active[0]!.generation}.events`);
    log(`projection: ${projection.events_per_second} events/s sustained (${backlog} events in ${projection.drain_seconds} s); table holds ${tableSize} events`);

    const app = fleet.apps[0]!;
    const listPath = () => `/v1/events?app_id=${app.id}&level=error&limit=50`;
    // Right after the drain, Postgres is still writing the millions of drained rows out to their
    // data files (the checkpoint they triggered), and reads wait behind those writes. The list is
    // timed then, and again after an explicit checkpoint, with the table at rest; both are reported.
    const listWhileFlushing = await measureQuery(service.baseUrl, fleet.agentKeys, listPath, 300);
    await db.query("checkpoint");
    const list = await measureQuery(service.baseUrl, fleet.agentKeys, listPath, 300);
    const countApp = await measureQuery(service.baseUrl, fleet.agentKeys, () => `/v1/events/count?app_id=${app.id}&since=1h`, 200);
    const countProject = await measureQuery(service.baseUrl, fleet.agentKeys, () => `/v1/events/count?project_id=${fleet.projectId}&since=1h`, 100);
    results.queries = {
      table_events: tableSize,
      list_by_app_and_level: list,
      list_by_app_and_level_while_flushing_the_drain: listWhileFlushing,
      count_last_hour_app: countApp,
      count_last_hour_project: countProject,
    };
    log(`GET /v1/events (app, level, limit 50): p50 ${list.p50_ms} ms, p99 ${list.p99_ms} ms over ${tableSize} events`);
    log(`  the same right after the drain, while its rows are flushed: p50 ${listWhileFlushing.p50_ms} ms, p99 ${listWhileFlushing.p99_ms} ms`);
    log(`GET /v1/events/count last hour: app p99 ${countApp.p99_ms} ms, project p99 ${countProject.p99_ms} ms`);

    if (settings.analytics) {
      // Its own project, so the metric and funnel tables hold exactly the data the targets name.
      const project = await call(service.baseUrl, "POST", "/v1/projects", { team_id: fleet.teamId, name: "Analytics", slug: `analytics-${suffix}` }, fleet.token);
      const app = await call(service.baseUrl, "POST", "/v1/apps", { project_id: project.id, name: "Analytics", platform: "web", bundle_id: "analytics.example.com" }, fleet.token);
      const pool = await openPool(databaseUrl, 4);
      try {
        const analytics = await runAnalyticsBench({ baseUrl: service.baseUrl, pool, project, app, token: fleet.token, log });
        results.analytics = analytics;
        log(`metric query (group_by=time:day, 30 days, ${analytics.metric_events} events): p50 ${analytics.metric_query_day_groups.p50_ms} ms, p95 ${analytics.metric_query_day_groups.p95_ms} ms`);
        log(`funnel query (5 steps, 30 days, ${analytics.funnel_users} users): open p95 ${analytics.funnel_query_open.p95_ms} ms, closed p95 ${analytics.funnel_query_closed.p95_ms} ms`);
      } finally {
        await pool.end();
      }
    }

    await adsPhase();

    const rss = await service.peakRssMb();
    results.peak_rss_mb = rss.total;
    results.peak_rss_mb_by_process = { service: rss.service, projector: rss.projector };
    log(`service peak RSS: ${rss.total} MB (api ${rss.service} MB, projector and worker child ${rss.projector} MB)`);
  } finally {
    closeConnections();
    await service.stop();
    await db.end();
    await dropStreams(streams);
    await streams.close();
    if (!process.env.BENCH_KEEP) await dropDatabase(databaseUrl, settings.admin);
    await rm(outbox, { recursive: true, force: true });
    await adNetwork.close();
  }
  await writeResults(results);
}

async function writeResults(results: Record<string, unknown>): Promise<void> {
  const file = new URL(`./results/${new Date().toISOString().replace(/[:.]/g, "-")}.json`, import.meta.url);
  await mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`figures written to bench/results/${file.pathname.split("/").at(-1)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
