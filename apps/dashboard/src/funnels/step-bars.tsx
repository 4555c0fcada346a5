import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useNarrowScreen } from "./narrow-screen.ts";
import type { FunnelStep, StepResult } from "./queries.ts";

const number = new Intl.NumberFormat();
const percent = (value: number) => `${value.toFixed(1)} %`;

/** What a step matches, as the editor put it: its `step:` message, its screen, or both. */
function matchOf(step: FunnelStep | undefined): string {
  if (!step) return "";
  const parts = [step.event_filter.step_name && `step:${step.event_filter.step_name}`, step.event_filter.screen_name && `screen ${step.event_filter.screen_name}`];
  return parts.filter(Boolean).join(" and ");
}

/**
 * Users reaching each step as bars; above each bar, in a paler colour, the users of the step
 * before who did not get here, so every bar stands as tall as the step before it.
 */
export function StepBars({ steps }: { steps: StepResult[] }) {
  const narrow = useNarrowScreen();
  // On a phone the axis names steps by number only (the table below names them): names collide.
  const data = steps.map((step) => ({ name: narrow ? `${step.step_index + 1}` : `${step.step_index + 1}. ${step.step_name}`, reached: step.unique_users, dropped: step.drop_off_count }));
  const first = steps[0]?.unique_users ?? 0;
  const last = steps.at(-1);
  const summary = first === 0 || !last ? "no users reached the first step" : `${number.format(first)} started, ${number.format(last.unique_users)} reached the last step (${percent(last.percentage)})`;
  return (
    <figure className="card chart" data-chart="funnel" aria-label={`Users per step: ${summary}`}>
      <figcaption>
        <h2>Users per step</h2>
        <span className="muted">{summary}</span>
      </figcaption>
      <div className="plot" aria-hidden="true">
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="name" tickLine={false} interval={0} fontSize={12} />
            <YAxis allowDecimals={false} tickLine={false} axisLine={false} width={40} fontSize={12} />
            <Tooltip cursor={{ fill: "#f3f4f6" }} formatter={(value, name) => [number.format(Number(value)), name]} />
            <Legend iconSize={10} wrapperStyle={{ fontSize: 12 }} formatter={(value) => <span className="legend-text">{value}</span>} />
            <Bar dataKey="reached" name="Reached the step" stackId="users" fill="#2563eb" isAnimationActive={false} />
            <Bar dataKey="dropped" name="Dropped off before it" stackId="users" fill="#fca5a5" radius={[3, 3, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** The same figures as the bars, exactly: users, share of the first step and drop-off per step. */
export function StepTable({ steps, definition }: { steps: StepResult[]; definition: FunnelStep[] | undefined }) {
  return (
    <table className="funnel-table">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col" className="num">
            Users
          </th>
          <th scope="col" className="num">
            Of first step
          </th>
          <th scope="col" className="num">
            Dropped off
          </th>
          <th scope="col" className="num">
            Drop-off
          </th>
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr key={step.step_index} data-step={step.step_index}>
            <th scope="row">
              {step.step_index + 1}. {step.step_name}
              <div className="muted">{matchOf(definition?.[step.step_index])}</div>
            </th>
            <td className="num" data-label="Users">
              {number.format(step.unique_users)}
            </td>
            <td className="num" data-label="Of first step">
              {percent(step.percentage)}
            </td>
            <td className="num" data-label="Dropped off">
              {step.step_index === 0 ? "–" : number.format(step.drop_off_count)}
            </td>
            <td className="num" data-label="Drop-off">
              {step.step_index === 0 ? "–" : percent(step.drop_off_percentage)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
