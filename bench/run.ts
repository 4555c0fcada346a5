import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino from "pino";
import { openPool } from "../projections/_runtime/database.ts";
import { generationSchema } from "../projections/_runtime/projection.ts";
import { connectLog } from "../streams/connection.ts";
import { freePort } from "../test/support/processes.ts";
import { dropDatabase, isolatedDatabaseUrl } from "../test/support/service.ts";
import { dropStreams, streamHead } from "../test/support/streams.ts";
import { runAdsBench, startBenchAdNetwork } from "./ads.ts";
import { runAnalyticsBench } from "./analytics.ts";
import { measureAttachmentTransfer } from "./attachments.ts";
import { activeGeneration, catchUpSeconds, eventsProjected } from "./checkpoints.ts";
import { measureCounts } from "./counts.ts";
import { runDrain } from "./drain.ts";
import { call, createAgentKeys, createFleet } from "./fleet.ts";
import { closeConnections } from "./http-client.ts";
import { createLaunchProject, runImport } from "./import-load.ts";
import { runIngestLoad } from "./ingest-load.ts";
import { runIssueListBench } from "./issue-lists.ts";
import { measureIssueLatency } from "./issues.ts";
import { KeyPacer } from "./key-pacer.ts";
import { measureLag } from "./lag.ts";
import { measureOverviewPage } from "./overview-page.ts";
import { measureQuery } from "./queries.ts";
import { measureRawLimits } from "./raw-limits.ts";
import { measureCpu } from "./cpu-use.ts";
import { runScale } from "./scale.ts";
import { startBenchService } from "./service-process.ts";
import { topStatements } from "./statements.ts";
import { PHASES, runs, settings } from "./settings.ts";
import { formatTable, targetRows, type Measured } from "./summary.ts";

/**
 * `npm run bench`: starts the service (api + projector + worker, one process) against the local
 * NATS and Postgres under a fresh database and namespace, drives it over HTTP like a fleet of SDKs,
 * and prints rates and latencies. It first measures the machine's raw limits (COPY into the events
 * table's shape, disk syncs, JetStream publishes) and ends with a table of every target: the figure,
 * its ratio to those limits (or to its target), pass or fail. Figures go to
 * bench/results/<time>.json for comparison.
 */

const suffix = randomBytes(4).toString("hex");
const namespace = `bench${suffix}`;
const databaseUrl = isolatedDatabaseUrl("bench", settings.admin);
const log = (line: string) => console.log(`[bench] ${line}`);
/** Requests a second per agent key: under the API's 10-token refill, so a client never times a 429. */
const AGENT_KEY_RATE = 9;

async function main() {
  const outbox = await mkdtemp(join(tmpdir(), "bench-outbox-"));
  // The ads phase reads campaigns from a local stand-in for the ad network.
  const adNetwork = await startBenchAdNetwork();
  const env = { DATABASE_URL: databaseUrl, NATS_URL: settings.nats, NAMESPACE: namespace, MAIL_OUTBOX_DIR: outbox, ...adNetwork.env };
  const service = await startBenchService(env, await freePort());
  const streams = await connectLog([settings.nats], namespace, pino({ level: "warn" }));
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const results: Record<string, unknown> = { at: new Date().toISOString(), settings, phases: PHASES.filter(runs) };
  const measured: Measured = {};
  try {
    const fleet = await createFleet(service.baseUrl, outbox, settings.apps);
    const keys = fleet.apps.map((app) => ({ clientKey: app.clientKey, bundleId: app.bundleId }));
    const agentKeys = new KeyPacer(fleet.agentKeys, AGENT_KEY_RATE);
    log(`fleet: ${fleet.apps.length} apps with their client keys`);

    // Before any load: what the database, the disk and the log take with nothing in between.
    if (runs("raw")) {
      measured.raw = await measureRawLimits(databaseUrl, [settings.nats], namespace, settings.raw, log);
      results.raw_limits = measured.raw;
    }

    // First, while the service is at rest: its resident set then shows what a transfer costs.
    if (runs("attachments")) {
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
    }

    if (runs("ingest")) {
      await runIngestLoad(service.baseUrl, keys, settings.clients, 3); // warm-up: JIT, pools, caches
      const ingest = await runIngestLoad(service.baseUrl, keys, settings.clients, settings.ingestSeconds);
      results.ingest = measured.ingest = ingest;
      log(`ingest: ${ingest.events_per_second} events/s acknowledged, p50 ${ingest.latency.p50_ms} ms, p99 ${ingest.latency.p99_ms} ms (${ingest.clients} clients, ${ingest.rate_limited} rate limited, ${ingest.failed} failed)`);

      // Lag is measured at a steady 5,000 events/s, once every read model has applied the burst
      // above; how long each took to catch up with it is reported on its own.
      const catchUp = await catchUpSeconds(db, await streamHead(streams, "INGEST"));
      results.catch_up_after_ingest_seconds = measured.catchUpAfterIngest = catchUp;
      log(`caught up with the ingest phase after: ${Object.entries(catchUp).map(([name, seconds]) => `${name} ${seconds} s`).join(", ")}`);

      const lag = await measureLag(service.baseUrl, databaseUrl, fleet.apps, settings.lagRate, 15);
      results.lag = measured.lag = lag;
      log(`lag at ${lag.events_per_second} events/s: p50 ${lag.lag.p50_ms} ms, p99 ${lag.lag.p99_ms} ms (${lag.failed} failed)`);
    }

    if (runs("issues")) {
      const issues = await measureIssueLatency(service.baseUrl, databaseUrl, fleet.apps, settings.issueRate, settings.lagRate, 15);
      results.error_to_issue = issues;
      log(
        `error to issue at ${issues.error_events_per_second} error events/s (${issues.new_issues_per_second} new issues/s) amid ${issues.events_per_second} events/s: ` +
          `p50 ${issues.latency.p50_ms} ms, p99 ${issues.latency.p99_ms} ms (${issues.failed} failed${issues.failed ? ` ${JSON.stringify(issues.failures)}` : ""})`,
      );
      // The drain below starts from rest: every read model first applies what that phase sent.
      results.catch_up_after_issue_phase_seconds = await catchUpSeconds(db, await streamHead(streams, "INGEST"));
    }

    const app = fleet.apps[0]!;
    if (runs("drain")) {
      const listPath = () => `/v1/events?app_id=${app.id}&level=error&limit=50`;
      const backlog = Math.max(0, settings.tableEvents - (await eventsProjected(db)));
      // Where the drain's time goes: CPU per process (and per event), and Postgres's statements when it can say.
      const measuredDrain = await topStatements(db, () => backlog, () => measureCpu(service.pid, () => backlog, () => runDrain({ db, streams, fleet, backlog, baseUrl: service.baseUrl, keys: fleet.agentKeys, perKeyPerSecond: AGENT_KEY_RATE, listPath: listPath() })));
      const projection = { ...measuredDrain.result.result, cpu: measuredDrain.result.cpu, statements: measuredDrain.statements };
      results.projection = measured.drain = projection;
      const tableSize = await eventsProjected(db);
      log(`projection: events ${projection.events_per_second} events/s sustained (${backlog} events in ${projection.drain_seconds} s); every INGEST read model ${projection.all_read_models_events_per_second} events/s (${Object.entries(projection.read_model_seconds).map(([name, seconds]) => `${name} ${seconds} s`).join(", ")}); table holds ${tableSize} events`);
      log(`drain CPU: ${Object.entries(projection.cpu.microseconds_per_event).map(([part, us]) => `${part} ${us} µs`).join(", ")} per event; ${projection.cpu.cores_busy} cores busy`);
      for (const statement of projection.statements ?? []) {
        log(`  ${statement.microseconds_per_event} µs/event, ${statement.calls} calls of ${statement.ms_per_call} ms, ${statement.wal_mb} MB WAL: ${statement.statement}`);
      }
      const during = projection.list_while_draining;
      log(`GET /v1/events (app, level, limit 50) during the drain: p50 ${during.p50_ms} ms, p99 ${during.p99_ms} ms (${during.count} requests, ${during.failed} failed)`);
      // Autovacuum analyzes partitions within about a minute of a bulk load; the query figures are
      // for that steady state, not for the minute when the planner has no statistics yet.
      await db.query(`analyze ${generationSchema("events", await activeGeneration(db, "events"))}.events`);

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
    }

    const launch = runs("import") ? await createLaunchProject(service.baseUrl, fleet.token, fleet.teamId, `launch-${suffix}`, settings.importClients) : undefined;
    if (launch) {
      const imported = await runImport({ baseUrl: service.baseUrl, db, streams, project: launch, agentKeys, events: settings.importEvents, clients: settings.importClients, users: 200_000 });
      results.import = measured.import = imported;
      log(
        `import: ${imported.events} events from ${imported.clients} clients acknowledged at ${imported.acknowledged_events_per_second} events/s in ${imported.post_seconds} s; ` +
          (imported.events_per_second === null ? `not all countable: ${imported.error}` : `countable after ${imported.countable_seconds} s: ${imported.events_per_second} events/s end to end`) +
          ` (${imported.rejected} rejected, ${imported.failed_batches} batches failed)`,
      );
    }

    if (runs("counts")) {
      // 8 concurrent clients would outrun 16 keys' rate limits and time 429s: 48 more keys let
      // them all ask as fast as the answers come.
      const countKeys = new KeyPacer([...fleet.agentKeys, ...(await createAgentKeys(service.baseUrl, fleet.token, fleet.teamId, 48, "bench counts"))], 9);
      const layouts = [
        { name: "spread over 24 h", projectId: fleet.projectId, appId: app.id },
        ...(launch ? [{ name: `${settings.importEvents} in the last hour`, projectId: launch.projectId, appId: launch.apps[0]!.id }] : []),
      ];
      // The import has just written its events: statistics as autovacuum would have them a minute
      // later, for every table the counts may read (the events and whatever is kept beside them).
      await db.query("analyze");
      measured.counts = [];
      for (const layout of layouts) {
        const counts = await measureCounts(service.baseUrl, db, countKeys, layout, settings.countClients, settings.countRequests);
        measured.counts.push(counts);
        log(`counts (${layout.name}, ${settings.countClients} clients): ${Object.entries(counts.latency).map(([name, figures]) => `${name} p95 ${figures.p95_ms} ms`).join(", ")}`);
      }
      results.counts = measured.counts;
    }

    if (runs("overview")) {
      const events = await eventsProjected(db);
      const overview = await measureOverviewPage({ baseUrl: service.baseUrl, token: fleet.token, projectId: fleet.projectId, loads: settings.overviewLoads });
      results.overview_page = measured.overview = { ...overview, events };
      log(
        `dashboard overview of ${events} events, load to charts drawn: first visit ${overview.first_visit_ms} ms; ` +
          Object.entries(overview.ranges).map(([range, figures]) => `${range} p50 ${figures.p50_ms} ms, p95 ${figures.p95_ms} ms`).join("; "),
      );
    }

    if (runs("analytics")) {
      // Its own project, so the metric and funnel tables hold exactly the data the targets name.
      const project = await call(service.baseUrl, "POST", "/v1/projects", { team_id: fleet.teamId, name: "Analytics", slug: `analytics-${suffix}` }, fleet.token);
      const analyticsApp = await call(service.baseUrl, "POST", "/v1/apps", { project_id: project.id, name: "Analytics", platform: "web", bundle_id: "analytics.example.com" }, fleet.token);
      const pool = await openPool(databaseUrl, 4);
      try {
        const analytics = await runAnalyticsBench({
          baseUrl: service.baseUrl, pool, project, app: analyticsApp, token: fleet.token, metricEvents: settings.metricEvents, funnelUsers: settings.funnelUsers, log,
        });
        results.analytics = measured.analytics = analytics;
        log(`metric query (group_by=time:day, 30 days, ${analytics.metric_events} events): p50 ${analytics.metric_query_day_groups.p50_ms} ms, p95 ${analytics.metric_query_day_groups.p95_ms} ms`);
        log(`funnel query (5 steps, 30 days, ${analytics.funnel_users} users): open p95 ${analytics.funnel_query_open.p95_ms} ms, closed p95 ${analytics.funnel_query_closed.p95_ms} ms`);
      } finally {
        await pool.end();
      }
      results.issue_lists = measured.issues = await runIssueListBench({
        baseUrl: service.baseUrl, db, token: fleet.token, teamId: fleet.teamId, slug: `issues-${suffix}`, count: settings.issueListIssues, apps: 4, requests: 60, log,
      });
    }

    // BENCH_ONLY=ads: the ads routes over BENCH_ADS_USERS (200,000) attributed users, alone.
    if (runs("ads")) {
      results.ads = await runAdsBench({ baseUrl: service.baseUrl, databaseUrl, streams, token: fleet.token, teamId: fleet.teamId, users: Number(process.env.BENCH_ADS_USERS ?? 200_000), log });
    }

    if (runs("scale")) {
      results.scale = await runScale(
        {
          admin: settings.admin,
          nats: settings.nats,
          outbox,
          events: settings.scaleEvents,
          projects: settings.scaleProjects,
          clients: settings.clients,
          ingestSeconds: settings.ingestSeconds,
          partitionCounts: settings.scalePartitions,
        },
        log,
      );
    }

    const rss = await service.peakRssMb();
    results.peak_rss_mb = rss.total;
    results.peak_rss_mb_by_process = { service: rss.service, projector: rss.projector };
    log(`service peak RSS: ${rss.total} MB (api ${rss.service} MB, projector and worker children ${rss.projector} MB)`);

    const rows = targetRows(measured);
    results.summary = rows;
    if (rows.length > 0) console.log(`\n${formatTable(rows)}\n`);
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
