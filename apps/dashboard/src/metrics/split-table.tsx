import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Empty } from "../ui/states.tsx";
import { formatMs } from "./durations.tsx";
import type { Dimension, MetricGroup } from "./queries.ts";

export const DIMENSION_LABELS: Record<Dimension, string> = {
  environment: "Environment",
  app_version: "App version",
  os_version: "OS version",
  device_model: "Device model",
  app_id: "App",
};

const number = new Intl.NumberFormat();
/** Runs without the field (a backend event has no device model) are one group of their own. */
const valueOf = (group: MetricGroup) => group.value ?? "(none)";
const SHOWN_IN_CHART = 12;

/** A metric's runs split by one dimension: the largest groups as bars, every group in the table. */
export function SplitTable({ dimension, groups, names }: { dimension: Dimension; groups: MetricGroup[]; names?: ReadonlyMap<string, string> | undefined }) {
  // A split by app shows the app's name where it is known (a deleted app's runs keep their id).
  const nameOf = (group: MetricGroup) => (group.value !== null && names?.get(group.value)) || valueOf(group);
  const label = DIMENSION_LABELS[dimension];
  if (groups.length === 0) return <Empty>No runs in this range to split by {label.toLowerCase()}.</Empty>;
  const sorted = [...groups].sort((a, b) => b.total_count - a.total_count || nameOf(a).localeCompare(nameOf(b)));
  const data = sorted.slice(0, SHOWN_IN_CHART).map((group) => ({ name: nameOf(group), completed: group.complete_count, failed: group.fail_count }));
  return (
    <>
      <div className="plot" aria-hidden="true">
        <ResponsiveContainer width="100%" height={Math.max(90, data.length * 30 + 30)}>
          <BarChart data={data} layout="vertical" margin={{ top: 0, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid horizontal={false} stroke="#e5e7eb" />
            <XAxis type="number" allowDecimals={false} tickLine={false} fontSize={12} />
            <YAxis type="category" dataKey="name" tickLine={false} axisLine={false} width={110} fontSize={12} />
            <Tooltip cursor={{ fill: "#f3f4f6" }} />
            <Bar dataKey="completed" name="Completed" stackId="runs" fill="#16a34a" isAnimationActive={false} />
            <Bar dataKey="failed" name="Failed" stackId="runs" fill="#dc2626" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <div className="scroll">
        <table className="split-table">
          <thead>
            <tr>
              <th scope="col">{label}</th>
              <th scope="col" className="num">
                Runs
              </th>
              <th scope="col" className="num">
                Completed
              </th>
              <th scope="col" className="num">
                Failed
              </th>
              <th scope="col" className="num">
                Success
              </th>
              <th scope="col" className="num">
                Avg duration
              </th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((group) => (
              <tr key={valueOf(group)} data-group={valueOf(group)}>
                <th scope="row">{nameOf(group)}</th>
                <td className="num" data-label="Runs">{number.format(group.total_count)}</td>
                <td className="num" data-label="Completed">{number.format(group.complete_count)}</td>
                <td className="num" data-label="Failed">{number.format(group.fail_count)}</td>
                <td className="num" data-label="Success">{group.success_rate === null ? "–" : `${group.success_rate.toFixed(1)} %`}</td>
                <td className="num" data-label="Avg duration">{formatMs(group.duration_avg_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
