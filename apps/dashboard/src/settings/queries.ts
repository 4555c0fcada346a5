import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { api, unwrap, type Answer } from "../api/client.ts";
import type { paths } from "../api/schema.ts";
import { useSession } from "../session/session.tsx";
import { teamKeys } from "../ui/team-queries.ts";

/** The JSON body a route takes, from the OpenAPI document like every other type here. */
export type RequestBody<P extends keyof paths, M extends "post" | "patch"> = paths[P][M] extends { requestBody?: { content: { "application/json": infer Body } } } ? Body : never;

export type ProjectDetail = Answer<"/v1/projects/{id}">;
export type App = ProjectDetail["apps"][number];
export type ApiKey = Answer<"/v1/auth/keys">["api_keys"][number];
export type TeamDetail = Answer<"/v1/teams/{teamId}">;
export type Member = TeamDetail["members"][number];
export type Role = Member["role"];

/**
 * Query keys of what the settings tabs read. The project list's key is the project picker's
 * (ui/project-picker.tsx), so a project created here shows in every page's picker at once.
 */
export const keys = {
  projects: teamKeys.projects,
  project: (projectId: string) => ["settings", "project", projectId] as const,
  apps: teamKeys.apps,
  apiKeys: (teamId: string) => ["settings", "api-keys", teamId] as const,
  team: (teamId: string) => ["settings", "team", teamId] as const,
  providers: (projectId: string) => ["settings", "providers", projectId] as const,
  integrations: (projectId: string) => ["settings", "integrations", projectId] as const,
  webhookSetup: (projectId: string) => ["settings", "webhook-setup", projectId] as const,
  audit: (teamId: string) => ["settings", "audit", teamId] as const,
};

/** A project with its apps, for the apps tab and the project editor. */
export function useProjectDetail(projectId: string | undefined) {
  return useQuery({
    queryKey: keys.project(projectId ?? ""),
    queryFn: () => unwrap(api.GET("/v1/projects/{id}", { params: { path: { id: projectId ?? "" } } })),
    enabled: projectId !== undefined,
  });
}

/** Every API key of the team (client, agent and import), as the signed-in user may see them. */
export function useTeamKeys() {
  const { team } = useSession();
  return useQuery({ queryKey: keys.apiKeys(team.id), queryFn: () => unwrap(api.GET("/v1/auth/keys", { params: { query: { team_id: team.id } } })) });
}

/** The team with its members and pending invitations, in one answer. */
export function useTeamDetail() {
  const { team } = useSession();
  return useQuery({ queryKey: keys.team(team.id), queryFn: () => unwrap(api.GET("/v1/teams/{teamId}", { params: { path: { teamId: team.id } } })) });
}

/**
 * After a change: what it touched is asked for again, and so is the audit log, which records
 * every change made here.
 */
export function useRefresh() {
  const queryClient = useQueryClient();
  const { team } = useSession();
  return useCallback(
    (...touched: (readonly string[])[]) => Promise.all([...touched, keys.audit(team.id)].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
    [queryClient, team.id],
  );
}
