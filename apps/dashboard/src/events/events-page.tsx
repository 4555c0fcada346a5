import { Route, Routes } from "react-router";
import { EventDetailView } from "./event-detail.tsx";
import { Explorer } from "./explorer.tsx";
import "./events.css";

/** /events: the explorer with its live tail; /events/<id>: one event. */
export function EventsPage() {
  return (
    <Routes>
      <Route index element={<Explorer />} />
      <Route path=":id" element={<EventDetailView />} />
    </Routes>
  );
}
