import type { ReactNode } from "react";
import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice, useSearchParam } from "../ui/project-picker.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { CountChart } from "./count-chart.tsx";
import { DataModeSwitch, RangePicker } from "./controls.tsx";
import { IssueStatus } from "./issue-status.tsx";
import { MetricRates } from "./metric-rates.tsx";
import { useOverview } from "./queries.ts";
import { dataModeOf, rangeOf } from "./window.ts";

const number = new Intl.NumberFormat();

function Tile({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="card tile">
      <h2>{label}</h2>
      <div className="figure">{children}</div>
    </div>
  );
}

/**
 * A project at a glance. The project, range and data mode live in the URL (`?project=…&range=7d&
 * mode=all`), so a view can be reloaded and shared.
 */
export function OverviewPage() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const [rangeParam, setRange] = useSearchParam("range");
  const [modeParam, setMode] = useSearchParam("mode");
  const range = rangeOf(rangeParam);
  const dataMode = dataModeOf(modeParam);
  const { series, totals, issues, metrics, stepHours } = useOverview(projectId, range, dataMode);

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Overview</h1>
        <Empty>
          <p>
            <strong>{team.name}</strong> has no projects yet. Create one with <code>POST /v1/projects</code> and an app with <code>POST /v1/apps</code>, then send events
            with the app's client key; they show up here.
          </p>
        </Empty>
      </section>
    );
  }

  const perUnit = stepHours === 1 ? "hour" : stepHours === 24 ? "day" : `${stepHours} hours`;
  return (
    <section aria-labelledby="page-title" className="overview">
      <div className="page-head">
        <h1 id="page-title">Overview</h1>
        <div className="controls">
          <ProjectPicker choice={choice} />
          <RangePicker value={range} onChange={setRange} />
          <DataModeSwitch value={dataMode} onChange={setMode} />
        </div>
      </div>

      <div className="tiles">
        <Tile label="Events">
          <Loaded query={series} label="Counting">
            {(points) => <span data-figure="events">{number.format(points.reduce((sum, point) => sum + point.events, 0))}</span>}
          </Loaded>
        </Tile>
        <Tile label="Errors">
          <Loaded query={series} label="Counting">
            {(points) => <span data-figure="errors">{number.format(points.reduce((sum, point) => sum + point.errors, 0))}</span>}
          </Loaded>
        </Tile>
        <Tile label="Active users">
          <Loaded query={totals} label="Counting">
            {(answer) => (
              <span data-figure="active-users" title={answer.estimated ? "Estimated: about 1 % either way" : undefined}>
                {answer.estimated ? "≈ " : ""}
                {number.format(answer.unique_users)}
              </span>
            )}
          </Loaded>
        </Tile>
        <Tile label="Open issues">
          <Loaded query={issues} label="Counting">
            {(counts) => <span data-figure="open-issues">{number.format(counts.open)}</span>}
          </Loaded>
        </Tile>
      </div>

      <div className="charts">
        <Loaded query={series} label="Loading events per hour">
          {(points) => <CountChart title={`Events per ${perUnit}`} unit="events" series={points} field="events" color="#2563eb" stepHours={stepHours} />}
        </Loaded>
        <Loaded query={series} label="Loading errors per hour">
          {(points) => <CountChart title={`Errors per ${perUnit}`} unit="errors" series={points} field="errors" color="#dc2626" stepHours={stepHours} />}
        </Loaded>
      </div>

      <div className="panels">
        <section className="card" aria-labelledby="issues-title">
          <h2 id="issues-title">Issues by status</h2>
          <Loaded query={issues} label="Loading issues">
            {(counts) => <IssueStatus counts={counts} />}
          </Loaded>
        </section>
        <section className="card" aria-labelledby="metrics-title">
          <h2 id="metrics-title">Top metrics' success rates</h2>
          <Loaded query={metrics} label="Loading metrics">
            {(answer) => <MetricRates stats={answer.stats} />}
          </Loaded>
        </section>
      </div>
    </section>
  );
}
