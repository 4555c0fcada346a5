import { Link, useLocation } from "react-router";
import type { EventItem } from "./queries.ts";

const time = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** An instant as the explorer writes every time: the reader's zone, date and time to the second. */
export const formatTime = (at: string) => time.format(new Date(at));

/** When an event happened, in the reader's time zone, with the exact instant on hover. */
export function EventTime({ at }: { at: string }) {
  return (
    <time dateTime={at} title={at}>
      {formatTime(at)}
    </time>
  );
}

export function LevelBadge({ level }: { level: string }) {
  return <span className={`level level-${level}`}>{level}</span>;
}

/**
 * Events as a list of links to their detail, newest or oldest first as given. The list's own
 * filters travel along in the link, so "back" returns to the same view.
 */
export function EventRows({ events, label }: { events: readonly EventItem[]; label: string }) {
  const { search } = useLocation();
  return (
    <ol className="event-rows" aria-label={label}>
      {events.map((event) => (
        <li key={event.id}>
          <Link to={{ pathname: `/events/${event.id}`, search }} className="event-row">
            <span className="event-when">
              <EventTime at={event.timestamp} />
            </span>
            <LevelBadge level={event.level} />
            <span className="event-message">{event.message}</span>
            <span className="event-meta muted">
              {[event.screen_name, event.user_id ? `user ${event.user_id}` : null, event.environment, event.is_dev ? "dev" : null].filter(Boolean).join(" · ")}
            </span>
          </Link>
        </li>
      ))}
    </ol>
  );
}
