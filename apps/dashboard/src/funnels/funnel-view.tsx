import { Link, useLocation, useNavigate, useParams } from "react-router";
import { ApiError } from "../api/client.ts";
import { DeleteDefinition } from "../metrics/delete-definition.tsx";
import { DataModeSwitch, RangePicker } from "../overview/controls.tsx";
import { dataModeOf, RANGES } from "../overview/window.ts";
import { useProjectChoice, useSearchParam } from "../ui/project-picker.tsx";
import { Segmented } from "../ui/segmented.tsx";
import { Empty, Loaded, Loading } from "../ui/states.tsx";
import { BREAKDOWN_LABELS, BreakdownTable } from "./breakdown-table.tsx";
import { funnelRangeOf } from "./funnel-range.ts";
import { BREAKDOWNS, breakdownOf, countingOf, useFunnelDefinition, useFunnelQuery, useFunnelWrites, type Breakdown, type Counting, type FunnelAnalytics } from "./queries.ts";
import { StepBars, StepTable } from "./step-bars.tsx";

const countingOptions: { value: Counting; label: string }[] = [
  { value: "open", label: "Open" },
  { value: "closed", label: "Closed" },
];
const countingHelp: Record<Counting, string> = {
  open: "Open: a user counts at every step up to the furthest one they reached, in any order.",
  closed: "Closed: a user counts at a step only after doing the steps before it, in order.",
};

/**
 * The rows of the breakdown asked for. While another view's answer is still shown, its rows (of
 * no breakdown, or another one) are not this breakdown's: they are waited for, not shown as empty.
 */
function BreakdownRows({ breakdown, analytics, updating }: { breakdown: Breakdown; analytics: FunnelAnalytics; updating: boolean }) {
  const rows = analytics.breakdown?.filter((row) => row.key === breakdown);
  if (updating && (rows === undefined || rows.length === 0)) return <Loading label={`Breaking down by ${BREAKDOWN_LABELS[breakdown].toLowerCase()}`} />;
  return <BreakdownTable breakdown={breakdown} rows={rows ?? []} stepNames={analytics.steps.map((step) => step.step_name)} />;
}

/**
 * /funnels/:slug: the funnel run over the range. Range, data mode, counting and breakdown are in
 * the URL (`range`, `mode`, `counting`, `by`); the definition and the result are asked for at once.
 */
export function FunnelView() {
  const slug = useParams().slug ?? "";
  const { projects, projectId } = useProjectChoice();
  const { search } = useLocation();
  const navigate = useNavigate();
  const [rangeParam, setRange] = useSearchParam("range");
  const [modeParam, setMode] = useSearchParam("mode");
  const [countingParam, setCounting] = useSearchParam("counting");
  const [byParam, setBy] = useSearchParam("by");
  const view = { range: funnelRangeOf(rangeParam), dataMode: dataModeOf(modeParam), counting: countingOf(countingParam), breakdown: breakdownOf(byParam) };

  const definition = useFunnelDefinition(projectId, slug);
  const result = useFunnelQuery(projectId, slug, view);
  const { remove } = useFunnelWrites(projectId ?? "");

  if (!projectId) return projects.isPending ? <Loading label="Loading projects" /> : <Empty>Choose a project on the funnels page first.</Empty>;
  if (definition.error instanceof ApiError && definition.error.status === 404) {
    return (
      <section aria-labelledby="page-title" className="funnels">
        <h1 id="page-title">No funnel “{slug}”</h1>
        <Empty>
          This project has no funnel with the slug <code>{slug}</code>; it may have been deleted. <Link to={{ pathname: "/funnels", search }}>See all funnels</Link>.
        </Empty>
      </section>
    );
  }
  const rangeLabel = RANGES[view.range].label;
  const { breakdown } = view;
  return (
    <section aria-labelledby="page-title" className="funnels">
      <p className="crumbs">
        <Link to={{ pathname: "/funnels", search }}>Funnels</Link>
      </p>
      <div className="page-head">
        <h1 id="page-title">{definition.data?.name ?? slug}</h1>
        <div className="controls">
          <RangePicker value={view.range} onChange={setRange} />
          <DataModeSwitch value={view.dataMode} onChange={setMode} />
          <Segmented legend="Counting" name="counting" options={countingOptions} value={view.counting} onChange={setCounting} />
          <label className="project">
            Break down by
            <select value={breakdown ?? ""} onChange={(event) => setBy(event.target.value)}>
              <option value="">Nothing</option>
              {BREAKDOWNS.map((option) => (
                <option key={option} value={option}>
                  {BREAKDOWN_LABELS[option]}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>

      <Loaded query={definition} label="Loading the funnel">
        {(funnel) => (
          <div className="definition-bar">
            <p>
              {funnel.description && (
                <>
                  {funnel.description}
                  <br />
                </>
              )}
              <span className="muted">{countingHelp[view.counting]}</span>
            </p>
            <div className="buttons">
              <Link className="button secondary" to={{ pathname: `/funnels/${slug}/edit`, search }}>
                Edit
              </Link>
              <DeleteDefinition
                noun="funnel"
                name={funnel.name}
                consequence="Its step events stay, but the funnel and its address are gone."
                pending={remove.isPending}
                failure={remove.error?.message}
                onDelete={() => remove.mutate(slug, { onSuccess: () => void navigate({ pathname: "/funnels", search }) })}
              />
            </div>
          </div>
        )}
      </Loaded>

      <Loaded query={result} label={`Running the funnel over the last ${rangeLabel}`}>
        {(analytics) => (
          <div className={result.isPlaceholderData ? "updating" : undefined} aria-busy={result.isPlaceholderData}>
            {analytics.total_users === 0 && (
              <Empty>
                No user reached the first step in the last {rangeLabel}. Steps count events named <code>step:&lt;step name&gt;</code> (or of the step's screen).
              </Empty>
            )}
            <StepBars steps={analytics.steps} />
            <section className="card" aria-labelledby="steps-title">
              <h2 id="steps-title">Steps</h2>
              <StepTable steps={analytics.steps} definition={definition.data?.steps} />
            </section>
            {breakdown && (
              <section className="card breakdown" aria-labelledby="breakdown-title">
                <h2 id="breakdown-title">By {BREAKDOWN_LABELS[breakdown].toLowerCase()}</h2>
                <BreakdownRows breakdown={breakdown} analytics={analytics} updating={result.isPlaceholderData} />
              </section>
            )}
          </div>
        )}
      </Loaded>
    </section>
  );
}
