import { useQueries, useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { api, unwrap } from "../api/client.ts";
import type { Loadable } from "../ui/states.tsx";
import { windowOf, type Bucket, type DataMode, type RangeKey, type TimeWindow } from "./window.ts";

export type SeriesPoint = { start: number; events: number; errors: number };


/** The current time, moved on every minute: the window slides with it, so a new hour gets its bucket. */
function useMinute(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const countOf = (projectId: string, dataMode: DataMode, since: string, until: string) =>
  unwrap(api.GET("/v1/events/count", { params: { query: { project_id: projectId, since, until, data_mode: dataMode } } }));

const seriesOf = (projectId: string, dataMode: DataMode, since: string, level?: "error") =>
  unwrap(api.GET("/v1/events/series", { params: { query: { project_id: projectId, since, until: new Date().toISOString(), interval: "hour", data_mode: dataMode, level } } }));

/** Sums hourly counts (UTC hours) into the range's buckets, each a whole number of hours long. */
function intoBuckets(buckets: readonly Bucket[], hours: readonly { start: string; count: number }[]): number[] {
  return buckets.map((bucket) =>
    hours.reduce((sum, hour) => {
      const at = Date.parse(hour.start);
      return at >= bucket.start && at < bucket.end ? sum + hour.count : sum;
    }, 0),
  );
}

/**
 * Events and errors per bucket: two requests for the whole range (`GET /v1/events/series`, hourly,
 * summed here into the range's buckets), refreshed every minute while the page is open.
 */
function useSeries(projectId: string, dataMode: DataMode, span: TimeWindow, enabled: boolean): Loadable<SeriesPoint[]> {
  const query = (level: "error" | undefined) => ({
    queryKey: ["series", projectId, dataMode, level ?? "any", span.since],
    queryFn: async () => (await seriesOf(projectId, dataMode, span.since, level)).buckets,
    refetchInterval: 60_000,
    enabled,
  });
  const combine = useCallback(
    (results: { data?: { start: string; count: number }[]; error: Error | null; refetch: () => unknown }[]): Loadable<SeriesPoint[]> => {
      const error = results.find((result) => result.error)?.error ?? null;
      const refetch = () => results.filter((result) => result.error).forEach((result) => result.refetch());
      const [events, errors] = results.map((result) => result.data);
      if (events === undefined || errors === undefined) return { data: undefined, error, refetch };
      const eventCounts = intoBuckets(span.buckets, events);
      const errorCounts = intoBuckets(span.buckets, errors);
      return { data: span.buckets.map((bucket, index) => ({ start: bucket.start, events: eventCounts[index]!, errors: errorCounts[index]! })), error, refetch };
    },
    [span.buckets],
  );
  return useQueries({ queries: [query(undefined), query("error")], combine });
}

/**
 * Everything the overview shows, asked for in one round of parallel requests: the series, the
 * range's totals (for active users), issues by status and the metrics' success rates. None waits
 * for another; each has its own loading and error state, so one slow or failed part does not
 * blank the page.
 */
export function useOverview(projectId: string | undefined, range: RangeKey, dataMode: DataMode) {
  const now = useMinute();
  const span = useMemo(() => windowOf(range, now), [range, now]);
  const enabled = projectId !== undefined;
  const project = projectId ?? "";
  const since = span.since;

  const series = useSeries(project, dataMode, span, enabled);
  const totals = useQuery({
    queryKey: ["overview", "totals", project, dataMode, since],
    queryFn: () => countOf(project, dataMode, since, new Date().toISOString()),
    enabled,
  });
  const issues = useQuery({
    queryKey: ["overview", "issues", project, dataMode],
    queryFn: () => unwrap(api.GET("/v1/issues/count", { params: { query: { project_id: project, data_mode: dataMode } } })),
    enabled,
  });
  const metrics = useQuery({
    queryKey: ["overview", "metrics", project, dataMode, since],
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/metric-stats", { params: { path: { projectId: project }, query: { since, until: new Date().toISOString(), data_mode: dataMode } } })),
    enabled,
  });
  return { series, totals, issues, metrics, stepHours: span.stepHours };
}
