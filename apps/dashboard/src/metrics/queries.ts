import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, unwrap, type Answer } from "../api/client.ts";
import type { paths } from "../api/schema.ts";
import type { DataMode, RangeKey } from "../overview/window.ts";
import { useTeamApps } from "../ui/team-queries.ts";

export type MetricDefinition = Answer<"/v1/projects/{projectId}/metrics">["metrics"][number];
export type Aggregation = Answer<"/v1/projects/{projectId}/metrics/{slug}/query">["aggregation"];
export type MetricGroup = NonNullable<Aggregation["groups"]>[number];

/** The dimensions a metric's runs can be split by, besides time (the API's `group_by`). */
export const DIMENSIONS = ["environment", "app_version", "os_version", "device_model", "app_id"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const dimensionOf = (value: string | null): Dimension | undefined => DIMENSIONS.find((dimension) => dimension === value);

/** Hours for the short ranges, days for the long ones: a chart of 7 to 31 bars. */
export const timeGroupOf = (range: RangeKey) => (range === "6h" || range === "24h" ? ("time:hour" as const) : ("time:day" as const));

/** Every key below starts with the area and the project, so a write can refresh all of one project's views. */
const definitionsKey = (projectId: string) => ["metrics", projectId, "definitions"] as const;

export function useMetricDefinitions(projectId: string | undefined) {
  return useQuery({
    queryKey: definitionsKey(projectId ?? ""),
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/metrics", { params: { path: { projectId: projectId ?? "" } } })),
    enabled: projectId !== undefined,
  });
}

/**
 * Complete and fail counts of every definition over the range. The range key ("24h", "7d"...) is
 * the API's relative `since` as it stands, so the window ends whenever the request is sent.
 */
export function useMetricStats(projectId: string | undefined, range: RangeKey, dataMode: DataMode) {
  return useQuery({
    queryKey: ["metrics", projectId ?? "", "stats", range, dataMode],
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/metric-stats", { params: { path: { projectId: projectId ?? "" }, query: { since: range, data_mode: dataMode } } })),
    enabled: projectId !== undefined,
  });
}

export function useMetricDefinition(projectId: string | undefined, slug: string) {
  return useQuery({
    queryKey: ["metrics", projectId ?? "", "definition", slug],
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/metrics/{slug}", { params: { path: { projectId: projectId ?? "", slug } } })),
    enabled: projectId !== undefined,
  });
}

type Grouping = NonNullable<NonNullable<paths["/v1/projects/{projectId}/metrics/{slug}/query"]["get"]["parameters"]["query"]>["group_by"]>;

/** One aggregation of a metric over the range, grouped by time or by a dimension (or not grouped, when `groupBy` is undefined and `enabled`). */
export function useMetricQuery(projectId: string | undefined, slug: string, range: RangeKey, dataMode: DataMode, groupBy: Grouping | undefined, enabled = true) {
  return useQuery({
    queryKey: ["metrics", projectId ?? "", "query", slug, range, dataMode, groupBy ?? "none"],
    queryFn: async () =>
      (await unwrap(api.GET("/v1/projects/{projectId}/metrics/{slug}/query", { params: { path: { projectId: projectId ?? "", slug }, query: { since: range, data_mode: dataMode, group_by: groupBy } } }))).aggregation,
    enabled: projectId !== undefined && enabled,
  });
}

export type MetricFields = { name: string; description: string | null; documentation: string | null; schema_definition: Record<string, unknown> | null };

/** Create, change and delete a definition; each refreshes every metrics view of the project once it is done. */
export function useMetricWrites(projectId: string) {
  const queryClient = useQueryClient();
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: ["metrics", projectId] });
  const path = (slug: string) => ({ path: { projectId, slug } });
  const create = useMutation({
    mutationFn: (fields: MetricFields & { slug: string }) => unwrap(api.POST("/v1/projects/{projectId}/metrics", { params: { path: { projectId } }, body: fields })),
    onSuccess,
  });
  const update = useMutation({
    mutationFn: ({ slug, fields }: { slug: string; fields: MetricFields }) => unwrap(api.PATCH("/v1/projects/{projectId}/metrics/{slug}", { params: path(slug), body: fields })),
    onSuccess,
  });
  const remove = useMutation({
    mutationFn: (slug: string) => unwrap(api.DELETE("/v1/projects/{projectId}/metrics/{slug}", { params: path(slug) })),
    onSuccess,
  });
  return { create, update, remove };
}

/** The team's app names by id, for a split by app: the API groups by the app's id. Asked for only when that split is shown. */
export function useAppNames(teamId: string, enabled: boolean) {
  const apps = useTeamApps(teamId, { enabled });
  const names = useMemo(() => (apps.data ? new Map(apps.data.apps.map((app) => [app.id, app.name])) : undefined), [apps.data]);
  return { ...apps, data: names };
}
