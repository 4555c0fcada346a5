/**
 * The benchmark's settings, each from its BENCH_* variable (README.md lists them), and which of its
 * phases a run includes.
 */
export const settings = {
  clients: Number(process.env.BENCH_CLIENTS ?? 8),
  apps: Number(process.env.BENCH_APPS ?? 64),
  ingestSeconds: Number(process.env.BENCH_SECONDS ?? 20),
  lagRate: Number(process.env.BENCH_LAG_RATE ?? 5_000),
  /** Error events a second in the error-to-issue phase, amid ordinary ingest at `lagRate`. */
  issueRate: Number(process.env.BENCH_ISSUE_RATE ?? 1_000),
  tableEvents: Number(process.env.BENCH_TABLE_EVENTS ?? 5_000_000),
  analytics: process.env.BENCH_ANALYTICS !== "0",
  /**
   * BENCH_ONLY runs the named phases alone, a comma list of: raw (the machine's limits), attachments,
   * ingest (burst, catch-up, lag), issues (error to issue), drain, import, counts (runs drain and
   * import too: it counts their events), analytics (metrics, funnels, issue lists), ads, scale
   * (projection with 1, 2 and 4 partitions and ingest through 1 and 2 API instances, each on a
   * fresh service).
   */
  only: process.env.BENCH_ONLY,
  raw: {
    copyRows: Number(process.env.BENCH_COPY_ROWS ?? 400_000),
    copyStatements: Number(process.env.BENCH_COPY_STATEMENTS ?? 8),
    syncSeconds: Number(process.env.BENCH_SYNC_SECONDS ?? 2),
    publishBytes: Number(process.env.BENCH_PUBLISH_BYTES ?? 50_000),
    publishInFlight: Number(process.env.BENCH_PUBLISH_IN_FLIGHT ?? 64),
    publishSeconds: Number(process.env.BENCH_PUBLISH_SECONDS ?? 5),
  },
  importEvents: Number(process.env.BENCH_IMPORT_EVENTS ?? 1_500_000),
  importClients: Number(process.env.BENCH_IMPORT_CLIENTS ?? 4),
  countClients: Number(process.env.BENCH_COUNT_CLIENTS ?? 8),
  /** Requests each count client makes per figure. */
  countRequests: Number(process.env.BENCH_COUNT_REQUESTS ?? 50),
  /** Reloads of the dashboard's overview per range in the overview phase. */
  overviewLoads: Number(process.env.BENCH_OVERVIEW_LOADS ?? 10),
  metricEvents: Number(process.env.BENCH_METRIC_EVENTS ?? 2_000_000),
  funnelUsers: Number(process.env.BENCH_FUNNEL_USERS ?? 200_000),
  issueListIssues: Number(process.env.BENCH_ISSUE_LIST_ISSUES ?? 100_000),
  /** The scale phase: history drained per partition count, over how many projects, and the counts compared. */
  scaleEvents: Number(process.env.BENCH_SCALE_EVENTS ?? 400_000),
  scaleProjects: Number(process.env.BENCH_SCALE_PROJECTS ?? 8),
  scalePartitions: (process.env.BENCH_SCALE_PARTITIONS ?? "1,2,4").split(",").map(Number),
  admin: process.env.BENCH_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  nats: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
};

export const PHASES = ["raw", "attachments", "ingest", "issues", "drain", "import", "counts", "overview", "analytics", "ads", "scale"] as const;
export type Phase = (typeof PHASES)[number];
const chosen = settings.only?.split(",").map((name) => name.trim()) ?? [...PHASES];
for (const name of chosen) if (!(PHASES as readonly string[]).includes(name)) throw new Error(`BENCH_ONLY: unknown phase ${name}; known: ${PHASES.join(", ")}`);
/** Whether `phase` runs: every phase without BENCH_ONLY (analytics unless BENCH_ANALYTICS=0), else those named and what counts and overview need. */
export const runs = (phase: Phase): boolean =>
  (phase !== "analytics" || settings.analytics || settings.only !== undefined) &&
  (chosen.includes(phase) || ((phase === "drain" || phase === "import") && chosen.includes("counts")) || (phase === "drain" && chosen.includes("overview")));
