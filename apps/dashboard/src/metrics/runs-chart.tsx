import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RangeKey } from "../overview/window.ts";
import type { MetricGroup } from "./queries.ts";
import { alignGroups, bucketName, bucketStarts, type TimeUnit } from "./time-buckets.ts";

const number = new Intl.NumberFormat();

type Props = { groups: MetricGroup[]; range: RangeKey; unit: TimeUnit; now: number };

/**
 * Completed and failed runs per hour or day as stacked bars, with the average duration as a line
 * on its own axis. The figure's label says the totals, for those who cannot see the bars.
 */
export function RunsChart({ groups, range, unit, now }: Props) {
  const data = alignGroups(bucketStarts(range, unit, now), groups).map(({ start, group }) => ({
    label: bucketName(start, unit),
    completed: group?.complete_count ?? 0,
    failed: group?.fail_count ?? 0,
    duration: group?.duration_avg_ms ?? null,
  }));
  const completed = data.reduce((sum, point) => sum + point.completed, 0);
  const failed = data.reduce((sum, point) => sum + point.failed, 0);
  const per = unit === "time:hour" ? "hour" : "day";
  const summary = completed + failed === 0 ? "no completed or failed runs in this range" : `${number.format(completed)} completed and ${number.format(failed)} failed`;
  return (
    <figure className="card chart" data-chart="runs" aria-label={`Runs per ${per}: ${summary}`}>
      <figcaption>
        <h2>Runs per {per}</h2>
        <span className="muted">{summary}</span>
      </figcaption>
      <div className="plot" aria-hidden="true">
        <ResponsiveContainer width="100%" height={240}>
          <ComposedChart data={data} margin={{ top: 8, right: 0, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="label" tickLine={false} minTickGap={16} fontSize={12} />
            <YAxis yAxisId="runs" allowDecimals={false} tickLine={false} axisLine={false} width={40} fontSize={12} />
            <YAxis yAxisId="ms" orientation="right" tickLine={false} axisLine={false} width={60} fontSize={12} tickFormatter={(value: number) => `${number.format(value)} ms`} />
            <Tooltip formatter={(value, name) => [name === "Avg duration" ? `${number.format(Math.round(Number(value)))} ms` : number.format(Number(value)), name]} cursor={{ fill: "#f3f4f6" }} />
            <Legend iconSize={10} wrapperStyle={{ fontSize: 12 }} />
            <Bar yAxisId="runs" dataKey="completed" name="Completed" stackId="runs" fill="#16a34a" isAnimationActive={false} />
            <Bar yAxisId="runs" dataKey="failed" name="Failed" stackId="runs" fill="#dc2626" radius={[3, 3, 0, 0]} isAnimationActive={false} />
            <Line yAxisId="ms" dataKey="duration" name="Avg duration" stroke="#7c3aed" strokeWidth={2} dot={{ r: 2 }} connectNulls isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
