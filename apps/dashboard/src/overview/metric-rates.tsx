import type { Answer } from "../api/client.ts";
import { Empty } from "../ui/states.tsx";

type Stat = Answer<"/v1/projects/{projectId}/metric-stats">["stats"][number];

const SHOWN = 5;

/** The most used metrics first: their success rate matters most. */
export const topMetrics = (stats: Stat[]) => [...stats].sort((a, b) => b.complete_count + b.fail_count - (a.complete_count + a.fail_count) || a.slug.localeCompare(b.slug)).slice(0, SHOWN);

/** The top metrics' success rates (complete / (complete + fail), in percent) in the range. */
export function MetricRates({ stats }: { stats: Stat[] }) {
  if (stats.length === 0) return <Empty>No metrics defined in this project yet. A metric counts events named <code>metric:&lt;slug&gt;:&lt;phase&gt;</code>.</Empty>;
  return (
    <table className="rates">
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col">Success</th>
          <th scope="col" className="num">
            Runs
          </th>
        </tr>
      </thead>
      <tbody>
        {topMetrics(stats).map((stat) => (
          <tr key={stat.slug}>
            <th scope="row">{stat.slug}</th>
            <td>
              {stat.success_rate === null ? (
                <span className="muted">no runs</span>
              ) : (
                <>
                  <meter min={0} max={100} low={90} optimum={100} value={stat.success_rate} aria-label={`${stat.slug} success rate`} /> {stat.success_rate.toFixed(1)} %
                </>
              )}
            </td>
            <td className="num">{stat.complete_count + stat.fail_count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
