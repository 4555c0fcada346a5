import { useEffect, useState, useSyncExternalStore } from "react";
import type { EventItem } from "./queries.ts";

/** The tail keeps the newest events only: a busy app would otherwise grow the page without end. */
export const LIVE_LIMIT = 200;

export type LiveState = "off" | "connecting" | "live" | "reconnecting" | "paused" | "refused";

const subscribeVisibility = (changed: () => void) => {
  document.addEventListener("visibilitychange", changed);
  return () => document.removeEventListener("visibilitychange", changed);
};
const pageVisible = () => document.visibilityState === "visible";

/**
 * Follows `GET /v1/events/live?<query>` while `enabled` and the page is visible: new events are
 * prepended, the newest LIVE_LIMIT kept. The session cookie authenticates the stream. A dropped
 * connection is retried by EventSource itself (`reconnecting`); a refusal (an answer that is not a
 * stream, such as 503 when the server's streams are all taken) closes it (`refused`), and `retry`
 * opens it again. A change of filters starts a new, empty tail.
 */
export function useLiveTail(query: string, enabled: boolean) {
  const visible = useSyncExternalStore(subscribeVisibility, pageVisible);
  const [events, setEvents] = useState<EventItem[]>([]);
  const [state, setState] = useState<LiveState>("off");
  const [attempt, setAttempt] = useState(0);

  useEffect(() => setEvents([]), [query]);

  useEffect(() => {
    if (!enabled) {
      setState("off");
      return;
    }
    if (!visible) {
      setState("paused");
      return;
    }
    setState("connecting");
    const source = new EventSource(`/v1/events/live?${query}`);
    source.onopen = () => setState("live");
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "refused" : "reconnecting");
    source.onmessage = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as EventItem;
      setEvents((current) => [event, ...current].slice(0, LIVE_LIMIT));
    };
    return () => source.close();
  }, [query, enabled, visible, attempt]);

  return { enabled, events, state, clear: () => setEvents([]), retry: () => setAttempt((count) => count + 1) };
}

export type LiveTail = ReturnType<typeof useLiveTail>;
