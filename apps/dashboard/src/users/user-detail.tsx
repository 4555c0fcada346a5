import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { ProjectPicker, useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, Loaded } from "../ui/states.tsx";
import { useRecentEvents, useUser, type AppUser } from "./queries.ts";
import { When } from "../ui/format.tsx";


function Facts({ user }: { user: AppUser }) {
  const facts: [string, ReactNode][] = [
    ["First seen", <When at={user.first_seen_at} />],
    ["Last seen", <When at={user.last_seen_at} />],
    ["Kind", user.is_anonymous ? "Anonymous" : "Identified"],
    ["Build", user.is_dev ? "Development" : "Production"],
    ["Country", user.last_country_code],
    ["App version", user.last_app_version],
    ["SDK", user.last_sdk_name && `${user.last_sdk_name} ${user.last_sdk_version ?? ""}`.trim()],
    ["Locale", user.last_locale],
    ["Preferred language", user.last_preferred_language],
    ["Merged anonymous ids", user.claimed_from && user.claimed_from.length > 0 ? user.claimed_from.join(", ") : null],
  ];
  return (
    <dl className="facts">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? "–"}</dd>
        </div>
      ))}
    </dl>
  );
}

function Properties({ properties }: { properties: Record<string, string> }) {
  const entries = Object.entries(properties).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <Empty>No properties set. Apps set them with the SDK (identity properties) and integrations add theirs.</Empty>;
  return (
    <table className="list-table compact">
      <thead>
        <tr>
          <th scope="col">Property</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row" data-label="Property">
              <code>{key}</code>
            </th>
            <td data-label="Value">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Apps({ apps }: { apps: AppUser["apps"] }) {
  return (
    <table className="list-table compact">
      <thead>
        <tr>
          <th scope="col">App</th>
          <th scope="col">First seen</th>
          <th scope="col">Last seen</th>
        </tr>
      </thead>
      <tbody>
        {apps.map((app) => (
          <tr key={app.app_id}>
            <th scope="row" data-label="App">
              {app.app_name}
            </th>
            <td data-label="First seen"><When at={app.first_seen_at} /></td>
            <td data-label="Last seen"><When at={app.last_seen_at} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RecentEvents({ projectId, userId }: { projectId: string | undefined; userId: string }) {
  const events = useRecentEvents(projectId, userId);
  return (
    <Loaded query={events} label="Loading events">
      {(answer) =>
        answer.events.length === 0 ? (
          <Empty>No events of this user in the retention window.</Empty>
        ) : (
          <table className="list-table compact events-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Level</th>
                <th scope="col">Message</th>
                <th scope="col">Screen</th>
                <th scope="col">App version</th>
              </tr>
            </thead>
            <tbody>
              {answer.events.map((event) => (
                <tr key={event.id}>
                  <td data-label="Time"><When at={event.timestamp} /></td>
                  <td data-label="Level">
                    <span className={`level level-${event.level}`}>{event.level}</span>
                  </td>
                  <th scope="row" data-label="Message" className="message">
                    {event.message}
                  </th>
                  <td data-label="Screen">{event.screen_name ?? "–"}</td>
                  <td data-label="App version">{event.app_version ?? "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Loaded>
  );
}

/**
 * One user of a project: `/users/<user id>?project=…`. The user and their events are asked for
 * together, both need only what the URL says.
 */
export function UserDetail() {
  const userId = useParams().userId ?? "";
  const choice = useProjectChoice();
  const { projectId } = choice;
  const user = useUser(projectId, userId);

  return (
    <section aria-labelledby="page-title" className="users user-detail">
      <p className="crumbs">
        <Link to={projectId ? `/users?project=${projectId}` : "/users"}>← All users</Link>
      </p>
      <div className="page-head">
        <h1 id="page-title" className="user-id">
          {userId}
        </h1>
        <div className="controls">
          <ProjectPicker choice={choice} />
        </div>
      </div>
      <Loaded query={user} label="Loading the user">
        {(found) =>
          found === null ? (
            <Empty>
              This project has no user <code>{userId}</code>. <Link to={`/users?project=${projectId ?? ""}`}>Search the users</Link>.
            </Empty>
          ) : (
            <div className="user-panels">
              <section className="card" aria-labelledby="facts-title">
                <h2 id="facts-title">Details</h2>
                <Facts user={found} />
              </section>
              <section className="card" aria-labelledby="properties-title">
                <h2 id="properties-title">Properties</h2>
                <Properties properties={found.properties} />
              </section>
              <section className="card" aria-labelledby="apps-title">
                <h2 id="apps-title">Apps</h2>
                <Apps apps={found.apps} />
              </section>
            </div>
          )
        }
      </Loaded>
      <section className="card recent" aria-labelledby="events-title">
        <h2 id="events-title">Recent events</h2>
        <RecentEvents projectId={projectId} userId={userId} />
      </section>
    </section>
  );
}
