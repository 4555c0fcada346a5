import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SeriesPoint } from "./queries.ts";

type Props = { title: string; unit: string; series: SeriesPoint[]; field: "events" | "errors"; color: string; stepHours: number };

const number = new Intl.NumberFormat();
const hourFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayHourFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", hour: "2-digit" });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });

/** How a bucket's start reads on the axis: the hour, the day and hour, or the day. */
export function bucketLabel(start: number, stepHours: number): string {
  if (stepHours >= 24) return dayFormat.format(start);
  return stepHours > 1 ? dayHourFormat.format(start) : hourFormat.format(start);
}

/**
 * One count per bucket as bars. The figure's label carries the total and the peak, so the chart
 * says something to a screen reader too. No animation: the bars are the data, drawn at once.
 */
export function CountChart({ title, unit, series, field, color, stepHours }: Props) {
  const total = series.reduce((sum, point) => sum + point[field], 0);
  const peak = series.reduce<SeriesPoint | undefined>((best, point) => (best === undefined || point[field] > best[field] ? point : best), undefined);
  const data = series.map((point) => ({ label: bucketLabel(point.start, stepHours), value: point[field] }));
  const summary = peak && total > 0 ? `${number.format(total)} in total, peak ${number.format(peak[field])} at ${bucketLabel(peak.start, stepHours)}` : `no ${unit} in this range`;
  return (
    <figure className="card chart" data-chart={field} aria-label={`${title}: ${summary}`}>
      <figcaption>
        <h2>{title}</h2>
        <span className="muted">{summary}</span>
      </figcaption>
      <div className="plot" aria-hidden="true">
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="label" tickLine={false} minTickGap={16} fontSize={12} />
            <YAxis allowDecimals={false} tickLine={false} axisLine={false} width={44} fontSize={12} />
            <Tooltip formatter={(value) => [number.format(Number(value)), title]} cursor={{ fill: "#f3f4f6" }} />
            <Bar dataKey="value" fill={color} radius={[3, 3, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
