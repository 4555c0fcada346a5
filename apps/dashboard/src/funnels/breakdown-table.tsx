import { Empty } from "../ui/states.tsx";
import type { Breakdown, FunnelAnalytics } from "./queries.ts";

export const BREAKDOWN_LABELS: Record<Breakdown, string> = { environment: "Environment", app_version: "App version" };

const number = new Intl.NumberFormat();
type Row = NonNullable<FunnelAnalytics["breakdown"]>[number];
/** Users whose events carry no value (no app version sent) are a group of their own. */
const nameOf = (row: Row) => row.value ?? "(none)";

/** One row per value of the breakdown: users at each step and the share of that value's first step. */
export function BreakdownTable({ breakdown, rows, stepNames }: { breakdown: Breakdown; rows: Row[]; stepNames: string[] }) {
  if (rows.length === 0) return <Empty>No users in this range to break down by {BREAKDOWN_LABELS[breakdown].toLowerCase()}.</Empty>;
  const sorted = [...rows].sort((a, b) => b.total_users - a.total_users || nameOf(a).localeCompare(nameOf(b)));
  return (
    <div className="scroll">
      <table className="breakdown-table">
        <thead>
          <tr>
            <th scope="col">{BREAKDOWN_LABELS[breakdown]}</th>
            {stepNames.map((name, index) => (
              <th key={index} scope="col" className="num">
                {index + 1}. {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => (
            <tr key={nameOf(row)} data-value={nameOf(row)}>
              <th scope="row">{nameOf(row)}</th>
              {row.steps.map((step) => (
                <td key={step.step_index} className="num" data-label={`${step.step_index + 1}. ${step.step_name}`} data-step={step.step_index}>
                  <span>
                    <span className="users">{number.format(step.unique_users)}</span>
                    {step.step_index > 0 && <span className="muted"> {step.percentage.toFixed(1)} %</span>}
                  </span>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
