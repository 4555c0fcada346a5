import { useSession } from "../session/session.tsx";
import { Empty, ErrorState, Loading } from "../ui/states.tsx";
import { BoardColumn } from "./board-column.tsx";
import { useTeamProjects } from "../ui/team-queries.ts";
import { BoardFilters, useBoardView } from "./board-filters.tsx";
import { useIssueCounts } from "./board-queries.ts";
import { number } from "./format.ts";
import { STATUSES } from "./status.ts";
import "./issues.css";

/**
 * The issues board: a column per status for one project or the whole team. The counts, the six
 * columns, the projects and the apps are asked for at once; each column pages on its own.
 */
export function IssuesPage() {
  const { team } = useSession();
  const view = useBoardView();
  const { scope, focused } = view;
  const projects = useTeamProjects(team.id);
  const counts = useIssueCounts(scope);

  if (projects.isPending && scope.projectId === undefined) return <Loading label="Loading projects" />;
  if (projects.isError && scope.projectId === undefined) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (projects.data?.projects.length === 0) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Issues</h1>
        <Empty>
          <p>
            <strong>{team.name}</strong> has no projects yet. Once a project's app sends an <code>error</code> event, it becomes an issue here.
          </p>
        </Empty>
      </section>
    );
  }

  return (
    <section aria-labelledby="page-title" className="issues-board">
      <div className="page-head">
        <div>
          <h1 id="page-title">Issues</h1>
          <p className="muted" aria-live="polite">
            {counts.data ? `${number.format(counts.data.open)} open (new, in progress or regressed)` : counts.isError ? "" : "Counting…"}
          </p>
        </div>
        <BoardFilters view={view} />
      </div>
      {/* On a phone the columns stack, and a long one hides the rest: these jump to each. */}
      <nav className="jump" aria-label="Statuses">
        {STATUSES.map((status) => (
          <a key={status.key} href={`#column-${status.key}`}>
            {status.label} {counts.data ? number.format(counts.data[status.key]) : ""}
          </a>
        ))}
      </nav>
      {counts.isError && <ErrorState error={counts.error} retry={() => void counts.refetch()} />}
      <div className="board">
        {STATUSES.map((status) => (
          <BoardColumn key={status.key} scope={scope} status={status.key} label={status.label} count={counts.data ? counts.data[status.key] : counts.isError ? null : undefined} focused={focused === status.key} />
        ))}
      </div>
    </section>
  );
}
