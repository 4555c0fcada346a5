import { AggregatorRegistry, collectDefaultMetrics, Counter, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from "prom-client";

/** One process's metrics as prom-client hands them between processes (JSON, not text). */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * The Prometheus metrics of one process, in a registry of its own (tests run several services in
 * one process). Every series carries `role` (the parts the process runs: `api`, `projector`,
 * `projector+worker`) and `pid`, so the series `npm start`'s children send to the API's
 * `/metrics` stay apart from its own and from each other's.
 */
export type Metrics = {
  readonly registry: Registry;
  readonly httpDuration: Histogram<"method" | "route" | "status_code">;
  readonly ingestEvents: Counter<"route" | "outcome">;
  readonly projectorBatchSeconds: Histogram<"read_model" | "partition">;
  readonly projectorFacts: Counter<"read_model" | "partition">;
  readonly jobRuns: Counter<"job_type" | "outcome">;
  readonly natsReconnects: Counter;
  /** Other processes whose metrics this one's `/metrics` includes (the embedded service's children). */
  addSource(source: () => Promise<MetricsSnapshot | undefined>): void;
  /** The text exposition of this process and its sources; a source that does not answer is left out. */
  exposition(): Promise<string>;
};

/** Seconds: API answers are milliseconds to seconds; projector batches tens of milliseconds to seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(role: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role, pid: String(process.pid) });
  collectDefaultMetrics({ register: registry });
  const sources: (() => Promise<MetricsSnapshot | undefined>)[] = [];
  return {
    registry,
    httpDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP answers by route (the route's pattern, `unmatched` for none), method and status",
      labelNames: ["method", "route", "status_code"],
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
    ingestEvents: new Counter({
      name: "ingest_events_total",
      help: "Events in ingest and import batches: accepted (appended to the log) or rejected (invalid, answered in the batch's errors)",
      labelNames: ["route", "outcome"],
      registers: [registry],
    }),
    projectorBatchSeconds: new Histogram({
      name: "projector_batch_seconds",
      help: "Time to apply one batch of facts to a read model's partition and commit its checkpoint",
      labelNames: ["read_model", "partition"],
      buckets: BATCH_BUCKETS,
      registers: [registry],
    }),
    projectorFacts: new Counter({ name: "projector_facts_total", help: "Facts a read model's partition read and applied (its own) or passed (other partitions')", labelNames: ["read_model", "partition"], registers: [registry] }),
    jobRuns: new Counter({
      name: "job_runs_total",
      help: "Job runs this process finished, by outcome: completed, failed, stopped (cancelled or taken over)",
      labelNames: ["job_type", "outcome"],
      registers: [registry],
    }),
    natsReconnects: new Counter({ name: "nats_reconnects_total", help: "Times the NATS connection was re-established after a loss", registers: [registry] }),
    addSource: (source) => void sources.push(source),
    exposition: async () => {
      if (sources.length === 0) return registry.metrics();
      const others = await Promise.all(sources.map((source) => source().catch(() => undefined)));
      const snapshots = [await registry.getMetricsAsJSON(), ...others.filter((snapshot) => snapshot !== undefined)];
      // Series of different processes differ by `pid`, so summing only puts them side by side;
      // "sum" for all, because other aggregators (`omit`) would drop a metric of every process.
      return AggregatorRegistry.aggregate(snapshots.map((snapshot) => snapshot.map((metric) => ({ ...metric, aggregator: "sum" as const })))).metrics();
    },
  };
}
