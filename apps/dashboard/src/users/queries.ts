import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap, type Answer } from "../api/client.ts";
import { usersQueryOf, type UsersView } from "./filters.ts";

export type AppUser = Answer<"/v1/app-users">["users"][number];

export function useUsers(projectId: string | undefined, view: UsersView) {
  return useQuery({
    queryKey: ["app-users", projectId, view],
    queryFn: () => unwrap(api.GET("/v1/app-users", { params: { query: usersQueryOf(projectId!, view) } })),
    enabled: projectId !== undefined,
    // A new filter keeps the rows on screen until its answer comes, rather than flashing "Loading".
    placeholderData: keepPreviousData,
  });
}


/** How many pages of a search are read looking for one user: a user id is rarely part of that many others. */
const MOST_PAGES = 10;

/**
 * One user of a project by their user id. The API lists users by a substring of the id, so the
 * exact id is looked for among the matches, page after page; null when the project has none.
 */
async function findUser(projectId: string, userId: string): Promise<AppUser | null> {
  let cursor: string | undefined;
  for (let page = 0; page < MOST_PAGES; page++) {
    const answer = await unwrap(api.GET("/v1/app-users", { params: { query: { project_id: projectId, search: userId, data_mode: "all", limit: 200, cursor } } }));
    const found = answer.users.find((user) => user.user_id === userId);
    if (found) return found;
    if (!answer.has_more || answer.cursor === null) return null;
    cursor = answer.cursor;
  }
  return null;
}

export function useUser(projectId: string | undefined, userId: string) {
  return useQuery({ queryKey: ["app-user", projectId, userId], queryFn: () => findUser(projectId!, userId), enabled: projectId !== undefined });
}

const RECENT = 25;

/** The user's latest events, production and development alike: on a person's page, all of them are theirs. */
export function useRecentEvents(projectId: string | undefined, userId: string) {
  return useQuery({
    queryKey: ["user-events", projectId, userId],
    queryFn: () => unwrap(api.GET("/v1/events", { params: { query: { project_id: projectId, user_id: userId, data_mode: "all", limit: RECENT } } })),
    enabled: projectId !== undefined,
  });
}
