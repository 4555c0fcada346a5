import { availableParallelism } from "node:os";
import type { AnalyticsFigures } from "./analytics.ts";
import type { CpuUse } from "./cpu-use.ts";
import type { CountFigures, EstimateCheck } from "./counts.ts";
import type { DrainFigures } from "./drain.ts";
import type { ImportFigures } from "./import-load.ts";
import type { IngestFigures } from "./ingest-load.ts";
import type { IssueListFigures } from "./issue-lists.ts";
import type { OverviewPageFigures } from "./overview-page.ts";
import type { RawLimits } from "./raw-limits.ts";
import { round } from "./stats.ts";

/** One line of the closing table. `ratio` names what it divides by; `pass` is null where there is no target or no figure to judge. */
export type TargetRow = { figure: string; value: string; target: string; ratio: string; pass: boolean | null };

/** What a run measured; a phase that did not run is absent and its rows are left out or marked n/a. */
export type Measured = {
  raw?: RawLimits;
  ingest?: IngestFigures;
  catchUpAfterIngest?: Record<string, number>;
  lag?: { events_per_second: number; lag: { p99_ms: number } };
  drain?: DrainFigures & { cpu?: CpuUse };
  import?: ImportFigures;
  counts?: CountFigures[];
  analytics?: AnalyticsFigures;
  issues?: IssueListFigures;
  overview?: OverviewPageFigures & { events: number };
};

const NONE = "—";
const times = (value: number, of: string) => `${round(value, 2)} × ${of}`;

/** A latency row: `ms` against a `below` ms target; the ratio is the figure's share of the target. */
function latency(figure: string, quantile: "p95" | "p99", ms: number, below: number): TargetRow {
  return { figure, value: `${quantile} ${ms} ms`, target: `< ${below} ms`, ratio: Number.isNaN(ms) ? "n/a" : times(ms / below, "target"), pass: Number.isNaN(ms) ? null : ms < below };
}

/** The larger relative error of the two distinct counts, judged only when the API says they are estimates. */
function estimateRow(figure: string, check: EstimateCheck): TargetRow {
  if (check.estimated === "n/a") return { figure, value: "n/a (no estimated field)", target: "≤ 2 %", ratio: "n/a", pass: null };
  const error = Math.max(check.users_error ?? 0, check.sessions_error ?? 0);
  const value = `${check.estimated ? "estimated" : "exact"}: users ${round((check.users_error ?? 0) * 100, 2)} %, sessions ${round((check.sessions_error ?? 0) * 100, 2)} % off`;
  return { figure, value, target: "≤ 2 %", ratio: times(error / 0.02, "target"), pass: check.estimated ? error <= 0.02 : error === 0 };
}

export function targetRows(m: Measured): TargetRow[] {
  const rows: TargetRow[] = [];
  const copy = m.raw?.copy.rows_per_second;
  if (m.raw) {
    rows.push({ figure: "raw: COPY into the events table's shape", value: `${m.raw.copy.rows_per_second} rows/s`, target: NONE, ratio: NONE, pass: null });
    rows.push({ figure: "raw: disk syncs (8 kB + fdatasync)", value: `${m.raw.disk_sync.syncs_per_second} /s`, target: NONE, ratio: NONE, pass: null });
    rows.push({ figure: `raw: JetStream acked publishes (${Math.round(m.raw.jetstream_publish.message_bytes / 1000)} kB)`, value: `${m.raw.jetstream_publish.publishes_per_second} /s`, target: NONE, ratio: NONE, pass: null });
  }
  if (m.ingest) {
    const batches = m.ingest.requests / m.ingest.seconds;
    const ratio = m.raw ? times(batches / m.raw.jetstream_publish.publishes_per_second, "JetStream publishes") : "n/a";
    rows.push({ figure: "ingest (100-event batches)", value: `${m.ingest.events_per_second} events/s`, target: NONE, ratio, pass: null });
  }
  if (m.drain) {
    const ratio = copy ? m.drain.all_read_models_events_per_second / copy : undefined;
    rows.push({ figure: "drain (events read model alone)", value: `${m.drain.events_per_second} events/s`, target: NONE, ratio: copy ? times(m.drain.events_per_second / copy, "COPY") : "n/a", pass: null });
    rows.push({ figure: "drain (every INGEST read model)", value: `${m.drain.all_read_models_events_per_second} events/s`, target: "≥ 0.8 × COPY", ratio: ratio === undefined ? "n/a" : times(ratio, "COPY"), pass: ratio === undefined ? null : ratio >= 0.8 });
    if (m.drain.cpu) {
      // The drain keeps every core busy, so its rate is bounded by the CPU all its processes spend
      // per event (the service, Postgres, NATS and the bench's backlog writer; not its list client):
      // the rate at which this machine's cores would run out at that cost, next to COPY's.
      const perEvent = Object.values(m.drain.cpu.microseconds_per_event).reduce((sum, us) => sum + us, 0);
      const ceiling = (availableParallelism() * 1e6) / perEvent;
      const bound = `${Math.round(ceiling)} events/s on ${availableParallelism()} cores${copy ? ` = ${times(ceiling / copy, "COPY")}` : ""}`;
      rows.push({ figure: "drain: CPU per event, every process", value: `${round(perEvent, 1)} µs`, target: NONE, ratio: bound, pass: null });
    }
  }
  if (m.lag) {
    const row = latency(`lag at ${m.lag.events_per_second} events/s`, "p99", m.lag.lag.p99_ms, 1000);
    rows.push({ ...row, ratio: `${row.ratio}${copy ? `; load ${times(m.lag.events_per_second / copy, "COPY")}` : ""}` });
  }
  if (m.catchUpAfterIngest && m.ingest) {
    const slowest = Math.max(...Object.values(m.catchUpAfterIngest));
    const ratio = slowest / m.ingest.seconds;
    rows.push({ figure: "catch-up after the ingest burst (slowest read model)", value: `${slowest} s after ${m.ingest.seconds} s`, target: "< 2 × burst", ratio: times(ratio, "burst"), pass: ratio < 2 });
  }
  if (m.import) {
    const eps = m.import.events_per_second;
    const ratio = eps !== null && m.drain ? eps / m.drain.all_read_models_events_per_second : undefined;
    rows.push({
      figure: `import ${m.import.events} events, ${m.import.clients} clients, until countable`,
      value: eps === null ? `not countable (${m.import.error ?? "unknown"})` : `${eps} events/s`,
      target: "≥ 0.5 × drain",
      ratio: ratio === undefined ? "n/a" : times(ratio, "drain"),
      pass: eps === null ? false : ratio === undefined ? null : ratio >= 0.5,
    });
  }
  if (m.drain) rows.push(latency("list by app and level, during the drain", "p99", m.drain.list_while_draining.p99_ms, 25));
  for (const layout of m.counts ?? []) {
    for (const [name, figures] of Object.entries(layout.latency)) rows.push(latency(`count ${name}, ${layout.layout}, ${figures.clients} clients`, "p95", figures.p95_ms, 100));
    for (const [name, check] of Object.entries(layout.estimates)) rows.push(estimateRow(`distinct counts ${name}, ${layout.layout}`, check));
  }
  if (m.analytics) {
    const a = m.analytics;
    rows.push(latency("metric query, by day", "p95", a.metric_query_day_groups.p95_ms, 100));
    rows.push(latency("metric query, by day, one app_version", "p95", a.metric_query_app_version.p95_ms, 100));
    rows.push(latency("metric stats", "p95", a.metric_stats.p95_ms, 100));
    rows.push(latency("metric completion counts", "p95", a.metric_completions_count.p95_ms, 100));
    rows.push(latency("funnel, open", "p95", a.funnel_query_open.p95_ms, 150));
    rows.push(latency("funnel, closed", "p95", a.funnel_query_closed.p95_ms, 150));
    rows.push(latency("funnel, by environment", "p95", a.funnel_query_by_environment.p95_ms, 150));
    const firsts = a.funnel_first_answer_ms;
    if (firsts) rows.push({ figure: "funnel, first answer (no day kept)", value: `open ${firsts.open}, closed ${firsts.closed}, by environment ${firsts.by_environment} ms`, target: NONE, ratio: "n/a", pass: null });
  }
  if (m.issues) {
    rows.push(latency(`issue counts (${m.issues.issues} issues)`, "p95", m.issues.count.p95_ms, 50));
    rows.push(latency("issue list", "p95", m.issues.list.p95_ms, 50));
    for (const [status, figures] of Object.entries(m.issues.list_by_status)) rows.push(latency(`issue list, ${status}`, "p95", figures.p95_ms, 50));
  }
  if (m.overview) {
    for (const [range, figures] of Object.entries(m.overview.ranges)) rows.push(latency(`dashboard overview, ${m.overview.events} events, ${range}, to charts drawn`, "p95", figures.p95_ms, 1000));
  }
  return rows;
}

/** The rows as an aligned text table. */
export function formatTable(rows: TargetRow[]): string {
  const cells = [["figure", "value", "target", "ratio", "result"], ...rows.map((row) => [row.figure, row.value, row.target, row.ratio, row.pass === null ? NONE : row.pass ? "pass" : "FAIL"])];
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  return cells.map((line) => line.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n");
}
