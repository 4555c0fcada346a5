import { Route, Routes } from "react-router";
import { useSession } from "../session/session.tsx";
import { useSearchParam } from "../ui/project-picker.tsx";
import { EventDetailView } from "./event-detail.tsx";
import { Explorer } from "./explorer.tsx";
import { apiQuery, queryString, useEventFilters } from "./filters.ts";
import { useLiveTail } from "./use-live-tail.ts";
import "./events.css";

/**
 * /events: the explorer with its live tail; /events/<id>: one event. The tail lives here, above
 * both: links to an event keep the list's query, so it goes on following (and keeps what it
 * received) while an event is open, and the list shows it on return.
 */
export function EventsPage() {
  const { team } = useSession();
  const { filters } = useEventFilters();
  const [live, setLive] = useSearchParam("live");
  const tail = useLiveTail(queryString(apiQuery(filters, team.id)), live === "1");
  return (
    <Routes>
      <Route index element={<Explorer tail={tail} setLive={(on) => setLive(on ? "1" : null)} />} />
      <Route path=":id" element={<EventDetailView />} />
    </Routes>
  );
}
