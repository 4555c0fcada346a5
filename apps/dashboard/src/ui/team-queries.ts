import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";

/**
 * The team-wide lists several pages read, each under one cache key holding the API's answer as it
 * came: a page that wants another form (names by id) derives it, so two pages can never store
 * different shapes under one key, and a change made anywhere (settings creating an app)
 * refreshes every page's copy.
 */
export const teamKeys = {
  projects: (teamId: string) => ["projects", teamId] as const,
  apps: (teamId: string) => ["apps", teamId] as const,
};

export function useTeamProjects(teamId: string) {
  return useQuery({ queryKey: teamKeys.projects(teamId), queryFn: () => unwrap(api.GET("/v1/projects", { params: { query: { team_id: teamId } } })) });
}

export function useTeamApps(teamId: string, options: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: teamKeys.apps(teamId), queryFn: () => unwrap(api.GET("/v1/apps", { params: { query: { team_id: teamId } } })), enabled: options.enabled ?? true });
}
