import { Link, useLocation, useParams } from "react-router";
import { Empty, Loaded } from "../ui/states.tsx";
import { AttachmentList } from "./attachment-list.tsx";
import { EventTime, formatTime, LevelBadge } from "./event-rows.tsx";
import { useEventDetail, type EventDetail } from "./queries.ts";

/** The fields of an event in the order a reader looks for them, with their labels. */
const FIELDS: readonly (readonly [keyof EventDetail, string])[] = [
  ["id", "Event id"],
  ["client_event_id", "Client event id"],
  ["received_at", "Received"],
  ["user_id", "User"],
  ["session_id", "Session"],
  ["screen_name", "Screen"],
  ["source_module", "Source module"],
  ["environment", "Environment"],
  ["is_dev", "Development data"],
  ["app_version", "App version"],
  ["build_number", "Build"],
  ["os_version", "OS version"],
  ["device_model", "Device"],
  ["locale", "Locale"],
  ["country_code", "Country"],
  ["sdk_name", "SDK"],
  ["sdk_version", "SDK version"],
  ["app_id", "App id"],
  ["project_id", "Project id"],
  ["api_key_id", "API key id"],
];

const shown = (value: unknown) => (value === null || value === undefined || value === "" ? "—" : typeof value === "boolean" ? (value ? "yes" : "no") : String(value));

function AttributeTable({ caption, rows }: { caption: string; rows: readonly (readonly [string, string])[] }) {
  return (
    <table className="attributes">
      <caption>{caption}</caption>
      <tbody>
        {rows.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One event (`/events/<id>`): its fields and custom attributes as tables, and its attachments. */
export function EventDetailView() {
  const { id = "" } = useParams();
  const { search } = useLocation();
  const { event, attachments } = useEventDetail(id);
  return (
    <section aria-labelledby="page-title" className="event-detail">
      <p>
        <Link to={{ pathname: "/events", search }}>← Back to events</Link>
      </p>
      <Loaded query={event} label="Loading the event">
        {(detail) => (
          <>
            <div className="page-head">
              <h1 id="page-title">
                <LevelBadge level={detail.level} /> {detail.message}
              </h1>
              <EventTime at={detail.timestamp} />
            </div>
            <div className="detail-grid">
              <div className="card">
                <AttributeTable caption="Event" rows={FIELDS.map(([key, label]) => [label, key === "received_at" ? formatTime(detail.received_at) : shown(detail[key])])} />
              </div>
              <div className="detail-side">
                <div className="card">
                  {Object.keys(detail.custom_attributes).length === 0 ? (
                    <>
                      <h2>Custom attributes</h2>
                      <Empty>
                        <p>This event has no custom attributes.</p>
                      </Empty>
                    </>
                  ) : (
                    <AttributeTable caption="Custom attributes" rows={Object.entries(detail.custom_attributes).sort(([a], [b]) => a.localeCompare(b))} />
                  )}
                </div>
                <section className="card" aria-labelledby="attachments-title">
                  <h2 id="attachments-title">Attachments</h2>
                  <Loaded query={attachments} label="Loading attachments">
                    {(answer) => <AttachmentList attachments={answer.attachments} />}
                  </Loaded>
                </section>
              </div>
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}
