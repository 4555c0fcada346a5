import { useSession } from "../session/session.tsx";
import { useSearchParam } from "../ui/project-picker.tsx";
import { Empty, Loaded } from "../ui/states.tsx";
import { EventRows } from "./event-rows.tsx";
import { FilterBar } from "./filter-bar.tsx";
import { apiQuery, useEventFilters } from "./filters.ts";
import { LivePanel } from "./live-panel.tsx";
import { useEventPage } from "./queries.ts";
import type { LiveTail } from "./use-live-tail.ts";

/**
 * The events list under every filter of `GET /v1/events`, a page at a time (`?cursor=` in the URL:
 * "Next page" follows the answer's cursor, "First page" drops it), and the live tail under the
 * same filters (held by the page, so it keeps running while an event is open).
 */
export function Explorer({ tail, setLive }: { tail: LiveTail; setLive: (on: boolean) => void }) {
  const { team } = useSession();
  const { filters, change } = useEventFilters();
  const [cursor, setCursor] = useSearchParam("cursor");
  const query = apiQuery(filters, team.id);
  const page = useEventPage({ ...query, order: filters.order, cursor: cursor ?? undefined });

  return (
    <section aria-labelledby="page-title" className="events-page">
      <div className="page-head">
        <h1 id="page-title">Events</h1>
      </div>
      <FilterBar filters={filters} change={change} />
      <LivePanel tail={tail} setEnabled={setLive} />
      <section className="card" aria-labelledby="list-title" aria-busy={page.isFetching}>
        <div className="list-head">
          <h2 id="list-title">{filters.order === "asc" ? "Oldest first" : "Newest first"}</h2>
          {page.isFetching && page.data && <span className="muted">Updating…</span>}
        </div>
        <Loaded query={page} label="Loading events">
          {(answer) =>
            answer.events.length === 0 ? (
              <Empty>
                <p>{cursor ? "No more events on this page." : "No events match these filters. Widen them, or send events with an app's client key (POST /v1/ingest)."}</p>
              </Empty>
            ) : (
              <EventRows events={answer.events} label="Events" />
            )
          }
        </Loaded>
        {/* A single page needs no paging. */}
        {(cursor || page.data?.has_more) && (
          <nav className="pager" aria-label="Pages">
            <button type="button" className="secondary" disabled={!cursor} onClick={() => setCursor(null)}>
              ← First page
            </button>
            <button type="button" disabled={!page.data?.has_more || page.isPlaceholderData} onClick={() => setCursor(page.data?.cursor ?? null)}>
              Next page →
            </button>
          </nav>
        )}
      </section>
    </section>
  );
}
