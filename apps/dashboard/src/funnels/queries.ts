import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap, type Answer } from "../api/client.ts";
import type { DataMode, RangeKey } from "../overview/window.ts";

export type FunnelDefinition = Answer<"/v1/projects/{projectId}/funnels">["funnels"][number];
export type FunnelStep = FunnelDefinition["steps"][number];
export type FunnelAnalytics = Answer<"/v1/projects/{projectId}/funnels/{slug}/query">["analytics"];
export type StepResult = FunnelAnalytics["steps"][number];

const COUNTINGS = ["open", "closed"] as const;
export type Counting = (typeof COUNTINGS)[number];
export const countingOf = (value: string | null): Counting => (value === "closed" ? "closed" : "open");

/** What the API can break a funnel down by. */
export const BREAKDOWNS = ["environment", "app_version"] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];
export const breakdownOf = (value: string | null): Breakdown | undefined => BREAKDOWNS.find((breakdown) => breakdown === value);

/** Every key starts with the area and the project, so a write refreshes all of one project's funnel views. */
export function useFunnelDefinitions(projectId: string | undefined) {
  return useQuery({
    queryKey: ["funnels", projectId ?? "", "definitions"],
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/funnels", { params: { path: { projectId: projectId ?? "" } } })),
    enabled: projectId !== undefined,
  });
}

export function useFunnelDefinition(projectId: string | undefined, slug: string) {
  return useQuery({
    queryKey: ["funnels", projectId ?? "", "definition", slug],
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/funnels/{slug}", { params: { path: { projectId: projectId ?? "", slug } } })),
    enabled: projectId !== undefined,
  });
}

export type FunnelView = { range: RangeKey; dataMode: DataMode; counting: Counting; breakdown: Breakdown | undefined };

/**
 * Users per step over the range. A breakdown comes in the same answer as the totals, so a view is
 * always one request. While a changed view loads, the previous answer stays on screen (marked as
 * updating) rather than the chart vanishing.
 */
export function useFunnelQuery(projectId: string | undefined, slug: string, view: FunnelView) {
  const { range, dataMode, counting, breakdown } = view;
  return useQuery({
    queryKey: ["funnels", projectId ?? "", "query", slug, range, dataMode, counting, breakdown ?? "none"],
    queryFn: async () =>
      (
        await unwrap(
          api.GET("/v1/projects/{projectId}/funnels/{slug}/query", {
            params: { path: { projectId: projectId ?? "", slug }, query: { since: range, data_mode: dataMode, mode: counting, group_by: breakdown } },
          }),
        )
      ).analytics,
    enabled: projectId !== undefined,
    placeholderData: keepPreviousData,
  });
}

export type FunnelFields = { name: string; description: string | null; steps: FunnelStep[] };

export function useFunnelWrites(projectId: string) {
  const queryClient = useQueryClient();
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: ["funnels", projectId] });
  const path = (slug: string) => ({ path: { projectId, slug } });
  const create = useMutation({
    mutationFn: (fields: FunnelFields & { slug: string }) => unwrap(api.POST("/v1/projects/{projectId}/funnels", { params: { path: { projectId } }, body: fields })),
    onSuccess,
  });
  const update = useMutation({
    mutationFn: ({ slug, fields }: { slug: string; fields: FunnelFields }) => unwrap(api.PATCH("/v1/projects/{projectId}/funnels/{slug}", { params: path(slug), body: fields })),
    onSuccess,
  });
  const remove = useMutation({
    mutationFn: (slug: string) => unwrap(api.DELETE("/v1/projects/{projectId}/funnels/{slug}", { params: path(slug) })),
    onSuccess,
  });
  return { create, update, remove };
}
