import { NotBuilt } from "../pages/not-built.tsx";

export function EventsPage() {
  return <NotBuilt title="Events" plan="Every filter of the event list, cursor paging, an event's attributes and attachments, and a live tail." routes={["GET /v1/events", "GET /v1/events/{id}"]} />;
}
