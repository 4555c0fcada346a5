import { useEffect, useRef } from "react";
import { ErrorState, Loading } from "../ui/states.tsx";
import { useIssueColumn, type BoardScope } from "./board-queries.ts";
import { number } from "./format.ts";
import { IssueCard } from "./issue-card.tsx";
import type { Status } from "./status.ts";

/** `count`: undefined while the grouped count loads, null when it failed (said once above the board). */
type Props = { scope: BoardScope; status: Status; label: string; count: number | null | undefined; focused: boolean };

/** One status of the board: its total from the grouped count, its issues a page at a time. */
export function BoardColumn({ scope, status, label, count, focused }: Props) {
  const column = useIssueColumn(scope, status);
  const region = useRef<HTMLElement>(null);
  const headingId = `column-${status}`;
  const issues = column.data?.pages.flatMap((page) => page.issues) ?? [];

  // The overview links to one status (`?status=new`): on a phone's single column it may be far down.
  useEffect(() => {
    if (focused) region.current?.scrollIntoView({ block: "nearest" });
  }, [focused]);

  return (
    <section ref={region} className={focused ? "card column focused" : "card column"} aria-labelledby={headingId} data-status={status}>
      <h2 id={headingId}>
        {label} <span className="count">{count === undefined ? "…" : count === null ? "?" : number.format(count)}</span>
      </h2>
      {column.isPending ? (
        <Loading label={`Loading ${label.toLowerCase()} issues`} />
      ) : column.isError && issues.length === 0 ? (
        <ErrorState error={column.error} retry={() => void column.refetch()} />
      ) : issues.length === 0 ? (
        <p className="muted none">No {label.toLowerCase()} issues.</p>
      ) : (
        <ul className="issue-list">
          {issues.map((issue) => (
            <IssueCard key={issue.id} issue={issue} showProject={scope.projectId === undefined} />
          ))}
        </ul>
      )}
      {column.isFetchNextPageError && <ErrorState error={column.error} retry={() => void column.fetchNextPage()} />}
      {column.hasNextPage && !column.isFetchNextPageError && (
        <button type="button" className="more" onClick={() => void column.fetchNextPage()} disabled={column.isFetchingNextPage}>
          {column.isFetchingNextPage ? "Loading…" : `More ${label.toLowerCase()}`}
        </button>
      )}
    </section>
  );
}
