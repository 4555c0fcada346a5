import { Link } from "react-router";
import { useSession } from "../session/session.tsx";
import { ProjectPicker, useProjectChoice } from "../ui/project-picker.tsx";
import { Empty, ErrorState, Loaded, Loading } from "../ui/states.tsx";
import { usersViewOf } from "./filters.ts";
import { Pager, useListParams } from "./paging.tsx";
import { useUsers, type AppUser } from "./queries.ts";
import { UsersFilters } from "./users-filters.tsx";
import { When } from "../ui/format.tsx";


export const userPath = (user: { user_id: string }, projectId: string) => `/users/${encodeURIComponent(user.user_id)}?project=${projectId}`;

function UserRow({ user, projectId }: { user: AppUser; projectId: string }) {
  return (
    <tr>
      <th scope="row" data-label="User">
        <Link to={userPath(user, projectId)}>{user.user_id}</Link>
        {user.is_anonymous && <span className="tag">anonymous</span>}
        {user.is_dev && <span className="tag">dev</span>}
      </th>
      <td data-label="Apps">{user.apps.map((app) => app.app_name).join(", ")}</td>
      <td data-label="Country">{user.last_country_code ?? "–"}</td>
      <td data-label="App version">{user.last_app_version ?? "–"}</td>
      <td data-label="Locale">{user.last_locale ?? "–"}</td>
      <td data-label="Last seen">
        <When at={user.last_seen_at} />
      </td>
      <td data-label="First seen">
        <When at={user.first_seen_at} />
      </td>
    </tr>
  );
}

/** A project's users, most recently seen first, with the API's filters; the whole view is in the URL. */
export function UsersList() {
  const { team } = useSession();
  const choice = useProjectChoice();
  const { projects, projectId } = choice;
  const [params, change] = useListParams();
  const view = usersViewOf(params);
  const users = useUsers(projectId, view);

  if (projects.isPending && !projectId) return <Loading label="Loading projects" />;
  if (projects.isError && !projectId) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (!projectId)
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Users</h1>
        <Empty>{team.name} has no projects yet; users appear once an app sends events with a user id.</Empty>
      </section>
    );

  const filtered = view.search !== "" || view.kind !== "all" || view.billing.length > 0 || view.seen !== "" || view.appId !== "";
  return (
    <section aria-labelledby="page-title" className="users">
      <div className="page-head">
        <h1 id="page-title">Users</h1>
        <div className="controls">
          <ProjectPicker choice={{ ...choice, choose: (id) => change({ project: id, app: null }) }} />
        </div>
      </div>
      <UsersFilters view={view} projectId={projectId} change={change} />
      <Loaded query={users} label="Loading users">
        {(answer) =>
          answer.users.length === 0 ? (
            <Empty>{filtered ? "No users match these filters." : "No users in this project yet: they appear once an app sends events."}</Empty>
          ) : (
            <>
              <div className="card table-card" aria-busy={users.isPlaceholderData}>
                <table className="list-table">
                  <caption className="sr-only">Users, most recently seen first</caption>
                  <thead>
                    <tr>
                      <th scope="col">User</th>
                      <th scope="col">Apps</th>
                      <th scope="col">Country</th>
                      <th scope="col">App version</th>
                      <th scope="col">Locale</th>
                      <th scope="col">Last seen</th>
                      <th scope="col">First seen</th>
                    </tr>
                  </thead>
                  <tbody>
                    {answer.users.map((user) => (
                      <UserRow key={user.id} user={user} projectId={projectId} />
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager params={params} next={answer.has_more ? answer.cursor : null} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
