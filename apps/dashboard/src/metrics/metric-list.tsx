import { Link, useLocation } from "react-router";
import { DataModeSwitch, RangePicker } from "../overview/controls.tsx";
import { dataModeOf, RANGES, rangeOf } from "../overview/window.ts";
import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice, useSearchParam } from "../ui/project-picker.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { useMetricDefinitions, useMetricStats, type MetricDefinition } from "./queries.ts";

type Stat = { slug: string; complete_count: number; fail_count: number; success_rate: number | null };

const number = new Intl.NumberFormat();

/**
 * The project's metric definitions with their complete and fail counts over the range. The
 * definitions and the counts are asked for together; the table waits for both, since a row
 * without its counts says nothing.
 */
export function MetricList() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const [rangeParam, setRange] = useSearchParam("range");
  const [modeParam, setMode] = useSearchParam("mode");
  const range = rangeOf(rangeParam);
  const dataMode = dataModeOf(modeParam);
  const definitions = useMetricDefinitions(projectId);
  const stats = useMetricStats(projectId, range, dataMode);
  const { search } = useLocation();

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Metrics</h1>
        <Empty>
          <strong>{team.name}</strong> has no projects yet; metrics are defined per project.
        </Empty>
      </section>
    );
  }

  const both = {
    data: definitions.data && stats.data ? { metrics: definitions.data.metrics, stats: stats.data.stats } : undefined,
    error: definitions.error ?? stats.error,
    refetch: () => Promise.all([definitions.refetch(), stats.refetch()]),
  };
  return (
    <section aria-labelledby="page-title" className="metrics">
      <div className="page-head">
        <h1 id="page-title">Metrics</h1>
        <div className="controls">
          <ProjectPicker choice={choice} />
          <RangePicker value={range} onChange={setRange} />
          <DataModeSwitch value={dataMode} onChange={setMode} />
          <Link className="button" to={{ pathname: "/metrics/new", search }}>
            New metric
          </Link>
        </div>
      </div>
      <div className="card">
        <Loaded query={both} label="Loading metrics">
          {({ metrics, stats }) =>
            metrics.length === 0 ? (
              <Empty>
                <p>No metrics defined in this project yet.</p>
                <p>
                  A metric counts the runs of an operation: events named <code>metric:&lt;slug&gt;:start</code>, <code>…:complete</code>, <code>…:fail</code>, <code>…:cancel</code> or{" "}
                  <code>…:record</code>, with <code>duration_ms</code> and <code>error</code> in their custom attributes. <Link to={{ pathname: "/metrics/new", search }}>Define the first one</Link>.
                </p>
              </Empty>
            ) : (
              <DefinitionTable metrics={metrics} stats={stats} search={search} rangeLabel={RANGES[range].label} />
            )
          }
        </Loaded>
      </div>
    </section>
  );
}

function DefinitionTable({ metrics, stats, search, rangeLabel }: { metrics: MetricDefinition[]; stats: Stat[]; search: string; rangeLabel: string }) {
  const statOf = new Map(stats.map((stat) => [stat.slug, stat]));
  const sorted = [...metrics].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <table className="metric-table">
      <caption className="muted">Runs in the last {rangeLabel}</caption>
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col" className="num">
            Completed
          </th>
          <th scope="col" className="num">
            Failed
          </th>
          <th scope="col">Success rate</th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((metric) => {
          const stat = statOf.get(metric.slug);
          return (
            <tr key={metric.id} data-metric={metric.slug}>
              <th scope="row">
                <Link to={{ pathname: `/metrics/${metric.slug}`, search }}>{metric.name}</Link> <code>{metric.slug}</code>
                {metric.description && <div className="muted">{metric.description}</div>}
              </th>
              <td className="num" data-label="Completed">
                {number.format(stat?.complete_count ?? 0)}
              </td>
              <td className="num" data-label="Failed">
                {number.format(stat?.fail_count ?? 0)}
              </td>
              <td data-label="Success rate">
                {stat?.success_rate === null || stat === undefined ? (
                  <span className="muted">no runs</span>
                ) : (
                  <span>
                    <meter min={0} max={100} low={90} optimum={100} value={stat.success_rate} aria-label={`${metric.name} success rate`} /> {stat.success_rate.toFixed(1)} %
                  </span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
