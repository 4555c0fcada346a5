import { useEffect, useState, type ReactNode } from "react";
import Markdown from "react-markdown";
import { Link, useLocation, useNavigate, useParams } from "react-router";
import { ApiError } from "../api/client.ts";
import { DataModeSwitch, RangePicker } from "../overview/controls.tsx";
import { dataModeOf, RANGES, rangeOf } from "../overview/window.ts";
import { useSession } from "../session/session.tsx";
import { useProjectChoice, useSearchParam } from "../ui/project-picker.tsx";
import { Empty, Loaded, Loading } from "../ui/states.tsx";
import { DeleteDefinition } from "./delete-definition.tsx";
import { Durations } from "./durations.tsx";
import { ErrorBreakdown } from "./error-breakdown.tsx";
import { DIMENSIONS, dimensionOf, timeGroupOf, useAppNames, useMetricDefinition, useMetricQuery, useMetricWrites, type Aggregation } from "./queries.ts";
import { RunsChart } from "./runs-chart.tsx";
import { DIMENSION_LABELS, SplitTable } from "./split-table.tsx";

const number = new Intl.NumberFormat();

function Tile({ label, figure, children }: { label: string; figure: string; children: ReactNode }) {
  return (
    <div className="card tile">
      <h2>{label}</h2>
      <div className="figure" data-figure={figure}>
        {children}
      </div>
    </div>
  );
}

function Totals({ aggregation }: { aggregation: Aggregation }) {
  return (
    <div className="tiles">
      <Tile label="Runs" figure="runs">
        {number.format(aggregation.total_count)}
      </Tile>
      <Tile label="Success rate" figure="success-rate">
        {aggregation.success_rate === null ? "–" : `${aggregation.success_rate.toFixed(1)} %`}
      </Tile>
      <Tile label="Failed" figure="failed">
        {number.format(aggregation.fail_count)}
      </Tile>
      <Tile label="Users" figure="users">
        {aggregation.sample_rate < 1 ? "≈ " : ""}
        {number.format(aggregation.unique_users)}
      </Tile>
    </div>
  );
}

/** The current time for the chart's buckets, moved on with each refresh of the data. */
function useNowAt(updatedAt: number) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => setNow(Date.now()), [updatedAt]);
  return now;
}

/**
 * /metrics/:slug: one metric over the range. The time series carries the totals, percentiles and
 * errors too, so it is one request; a split by a dimension is a second, sent alongside it.
 */
export function MetricView() {
  const slug = useParams().slug ?? "";
  const { team } = useSession();
  const { projects, projectId } = useProjectChoice();
  const { search } = useLocation();
  const navigate = useNavigate();
  const [rangeParam, setRange] = useSearchParam("range");
  const [modeParam, setMode] = useSearchParam("mode");
  const [byParam, setBy] = useSearchParam("by");
  const range = rangeOf(rangeParam);
  const dataMode = dataModeOf(modeParam);
  const by = dimensionOf(byParam);
  const unit = timeGroupOf(range);

  const definition = useMetricDefinition(projectId, slug);
  const series = useMetricQuery(projectId, slug, range, dataMode, unit);
  const split = useMetricQuery(projectId, slug, range, dataMode, by, by !== undefined);
  const appNames = useAppNames(team.id, by === "app_id");
  const { remove } = useMetricWrites(projectId ?? "");
  const now = useNowAt(series.dataUpdatedAt);

  if (!projectId) return projects.isPending ? <Loading label="Loading projects" /> : <Empty>Choose a project on the metrics page first.</Empty>;
  if (definition.error instanceof ApiError && definition.error.status === 404) {
    return (
      <section aria-labelledby="page-title" className="metrics">
        <h1 id="page-title">No metric “{slug}”</h1>
        <Empty>
          This project has no metric with the slug <code>{slug}</code>; it may have been deleted. <Link to={{ pathname: "/metrics", search }}>See all metrics</Link>.
        </Empty>
      </section>
    );
  }
  const rangeLabel = RANGES[range].label;
  return (
    <section aria-labelledby="page-title" className="metrics">
      <p className="crumbs">
        <Link to={{ pathname: "/metrics", search }}>Metrics</Link>
      </p>
      <div className="page-head">
        <div>
          <h1 id="page-title">{definition.data?.name ?? slug}</h1>
          <code>metric:{slug}:&lt;phase&gt;</code>
        </div>
        <div className="controls">
          <RangePicker value={range} onChange={setRange} />
          <DataModeSwitch value={dataMode} onChange={setMode} />
          <label className="project">
            Split by
            <select value={by ?? ""} onChange={(event) => setBy(event.target.value)}>
              <option value="">Nothing</option>
              {DIMENSIONS.map((dimension) => (
                <option key={dimension} value={dimension}>
                  {DIMENSION_LABELS[dimension]}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>

      <Loaded query={definition} label="Loading the metric">
        {(metric) => (
          <div className="definition-bar">
            {metric.description && <p>{metric.description}</p>}
            <div className="buttons">
              <Link className="button secondary" to={{ pathname: `/metrics/${slug}/edit`, search }}>
                Edit
              </Link>
              <DeleteDefinition
                noun="metric"
                name={metric.name}
                consequence="Its events stay; defining the slug again brings it back with its history."
                pending={remove.isPending}
                failure={remove.error?.message}
                onDelete={() => remove.mutate(slug, { onSuccess: () => void navigate({ pathname: "/metrics", search }) })}
              />
            </div>
          </div>
        )}
      </Loaded>

      <Loaded query={series} label={`Loading the last ${rangeLabel}`}>
        {(aggregation) => (
          <>
            <Totals aggregation={aggregation} />
            {aggregation.total_count === 0 && (
              <Empty>
                No runs of this metric in the last {rangeLabel}. Send events named <code>metric:{slug}:start</code>, <code>metric:{slug}:complete</code> or{" "}
                <code>metric:{slug}:fail</code> and they count here.
              </Empty>
            )}
            <RunsChart groups={aggregation.groups ?? []} range={range} unit={unit} now={now} />
            <div className="panels">
              <Durations aggregation={aggregation} />
              <ErrorBreakdown aggregation={aggregation} />
            </div>
          </>
        )}
      </Loaded>

      {by && (
        <section className="card split" aria-labelledby="split-title">
          <h2 id="split-title">Runs by {DIMENSION_LABELS[by].toLowerCase()}</h2>
          <Loaded query={split} label={`Splitting by ${DIMENSION_LABELS[by].toLowerCase()}`}>
            {(aggregation) => <SplitTable dimension={by} groups={aggregation.groups ?? []} names={appNames.data} />}
          </Loaded>
        </section>
      )}

      {definition.data?.documentation && (
        <section className="card documentation" aria-labelledby="docs-title">
          <h2 id="docs-title">Documentation</h2>
          <Markdown>{definition.data.documentation}</Markdown>
        </section>
      )}
    </section>
  );
}
