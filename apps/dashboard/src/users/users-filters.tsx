import { Segmented } from "../ui/segmented.tsx";
import { BILLING, SEEN_WITHIN, type Billing, type Kind, type UsersView } from "./filters.ts";
import { useSession } from "../session/session.tsx";
import { useTeamApps } from "../ui/team-queries.ts";
import { DataModeSwitch } from "../overview/controls.tsx";

const KINDS: { value: Kind; label: string }[] = [
  { value: "all", label: "All" },
  { value: "identified", label: "Identified" },
  { value: "anonymous", label: "Anonymous" },
];
const BILLING_LABELS: Record<Billing, string> = { free: "Free", trial: "Trial", paid: "Paid" };

type Props = { view: UsersView; projectId: string | undefined; change: (changes: Record<string, string | null>) => void };

/**
 * The users list's filters. The search is sent with its button (or Enter), not on every key:
 * each search is a URL in the history and a request.
 */
export function UsersFilters({ view, projectId, change }: Props) {
  const apps = useTeamApps(useSession().team.id);
  const projectApps = (apps.data?.apps ?? []).filter((app) => app.project_id === projectId);
  const toggleBilling = (status: Billing, on: boolean) => {
    const chosen = BILLING.filter((candidate) => (candidate === status ? on : view.billing.includes(candidate)));
    change({ billing: chosen.join(",") });
  };

  return (
    <div className="user-filters">
      <form
        role="search"
        className="search"
        onSubmit={(event) => {
          event.preventDefault();
          change({ search: new FormData(event.currentTarget).get("search")?.toString().trim() ?? "" });
        }}
      >
        <label>
          User id contains
          <input key={view.search} name="search" type="search" defaultValue={view.search} />
        </label>
        <button type="submit">Search</button>
      </form>
      <label className="field">
        App
        <select value={view.appId} onChange={(event) => change({ app: event.target.value })}>
          <option value="">All apps</option>
          {projectApps.map((app) => (
            <option key={app.id} value={app.id}>
              {app.name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Last seen
        <select value={view.seen} onChange={(event) => change({ seen: event.target.value })}>
          {SEEN_WITHIN.map((range) => (
            <option key={range.value} value={range.value}>
              {range.label}
            </option>
          ))}
        </select>
      </label>
      <Segmented legend="Users" name="kind" options={KINDS} value={view.kind} onChange={(kind) => change({ kind: kind === "all" ? null : kind })} />
      <fieldset className="checks">
        <legend>Billing</legend>
        {BILLING.map((status) => (
          <label key={status}>
            <input type="checkbox" checked={view.billing.includes(status)} onChange={(event) => toggleBilling(status, event.target.checked)} />
            {BILLING_LABELS[status]}
          </label>
        ))}
      </fieldset>
      <DataModeSwitch value={view.dataMode} onChange={(mode) => change({ mode: mode === "production" ? null : mode })} />
    </div>
  );
}

