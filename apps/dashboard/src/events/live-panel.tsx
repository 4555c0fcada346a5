import { Empty } from "../ui/states.tsx";
import { EventRows } from "./event-rows.tsx";
import { LIVE_LIMIT, type LiveState, type LiveTail } from "./use-live-tail.ts";

const STATE_TEXT: Record<LiveState, string> = {
  off: "Off",
  connecting: "Connecting…",
  live: "Connected",
  reconnecting: "Reconnecting…",
  paused: "Paused while the page is hidden",
  refused: "Stopped: the server refused the stream",
};

/**
 * The live tail under the page's filters: events as they are accepted, newest first, the last
 * LIVE_LIMIT kept. It runs only while switched on (`?live=1`) and the page is visible.
 */
export function LivePanel({ tail, setEnabled }: { tail: LiveTail; setEnabled: (on: boolean) => void }) {
  const { enabled, events, state, clear, retry } = tail;
  return (
    <section className="card live" aria-labelledby="live-title">
      <div className="live-head">
        <h2 id="live-title">Live tail</h2>
        <label className="switch">
          <input type="checkbox" role="switch" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
          Follow new events
        </label>
        <span className={`live-state live-${state}`} role="status">
          {STATE_TEXT[state]}
        </span>
        {state === "refused" && (
          <button type="button" className="secondary" onClick={retry}>
            Reconnect
          </button>
        )}
        {events.length > 0 && (
          <button type="button" className="secondary" onClick={clear}>
            Clear
          </button>
        )}
      </div>
      {enabled &&
        state !== "refused" &&
        (events.length === 0 ? (
          <Empty>
            <p>Events matching the filters appear here as soon as they are accepted.</p>
          </Empty>
        ) : (
          <>
            <p className="muted">
              {events.length} new {events.length === 1 ? "event" : "events"}
              {events.length === LIVE_LIMIT ? ` (the newest ${LIVE_LIMIT} are kept)` : ""}
            </p>
            <EventRows events={events} label="Live events" />
          </>
        ))}
    </section>
  );
}
