import { Bar, BarChart, LabelList, ResponsiveContainer, XAxis, YAxis } from "recharts";
import { Empty } from "../ui/states.tsx";
import type { Aggregation } from "./queries.ts";

const ms = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
export const formatMs = (value: number | null) => (value === null ? "–" : `${ms.format(value)} ms`);

/**
 * How long runs took: the median, the 95th and 99th percentiles and the mean, over the runs that
 * reported a `duration_ms`. A sample rate below 1 means the API estimated them (within 1 %).
 */
export function Durations({ aggregation }: { aggregation: Aggregation }) {
  const rows = [
    { label: "p50", value: aggregation.duration_p50_ms },
    { label: "p95", value: aggregation.duration_p95_ms },
    { label: "p99", value: aggregation.duration_p99_ms },
  ];
  return (
    <section className="card" aria-labelledby="durations-title">
      <h2 id="durations-title">Duration</h2>
      {aggregation.duration_p50_ms === null ? (
        <Empty>No run in this range reported a duration (the <code>duration_ms</code> attribute).</Empty>
      ) : (
        <>
          <dl className="percentiles">
            {rows.map((row) => (
              <div key={row.label}>
                <dt>{row.label}</dt>
                <dd data-percentile={row.label}>{formatMs(row.value)}</dd>
              </div>
            ))}
            <div>
              <dt>mean</dt>
              <dd data-percentile="avg">{formatMs(aggregation.duration_avg_ms)}</dd>
            </div>
          </dl>
          <div className="plot small" aria-hidden="true">
            <ResponsiveContainer width="100%" height={110}>
              <BarChart data={rows} layout="vertical" margin={{ top: 0, right: 72, bottom: 0, left: 0 }}>
                <XAxis type="number" hide />
                <YAxis type="category" dataKey="label" tickLine={false} axisLine={false} width={36} fontSize={12} />
                <Bar dataKey="value" fill="#7c3aed" radius={[0, 3, 3, 0]} isAnimationActive={false}>
                  <LabelList dataKey="value" position="right" fontSize={12} formatter={(value: unknown) => formatMs(typeof value === "number" ? value : null)} />
                </Bar>
              </BarChart>
            </ResponsiveContainer>
          </div>
          {aggregation.sample_rate < 1 && <p className="muted">Estimated from a sample of the runs, within 1 %.</p>}
        </>
      )}
    </section>
  );
}
