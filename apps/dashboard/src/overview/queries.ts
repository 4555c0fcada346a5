import { useQueries, useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { api, unwrap } from "../api/client.ts";
import { untilOf, windowOf, type Bucket, type DataMode, type RangeKey, type TimeWindow } from "./window.ts";

export type SeriesPoint = { start: number; events: number; errors: number };

/** What a page region needs from one or several queries: it is loading, failed, or has its data. */
export type Loadable<T> = { data: T | undefined; error: Error | null; refetch: () => unknown };

/** The current time, moved on every minute: the window slides with it, so a new hour gets its bucket. */
function useMinute(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const countOf = (projectId: string, dataMode: DataMode, since: string, until: string, level?: "error") =>
  unwrap(api.GET("/v1/events/count", { params: { query: { project_id: projectId, since, until, data_mode: dataMode, level } } }));

/**
 * One bucket's count as a query of its own. The API has no histogram, so a chart costs two counts
 * per bucket, and each count spends one of the caller's rate-limit tokens (100, refilled at 10 a
 * second). Queries per bucket keep that affordable: a finished bucket's count is refreshed every
 * ten minutes (only late events change it) and shared by ranges that overlap, the minutely refresh
 * asks again only for the bucket still filling, and a rate-limited bucket is retried alone.
 */
function bucketCount(projectId: string, dataMode: DataMode, bucket: Bucket, level: "error" | undefined, enabled: boolean) {
  const filling = bucket.end > Date.now();
  return {
    queryKey: ["count", projectId, dataMode, level ?? "any", bucket.start, bucket.end, filling],
    queryFn: async () => (await countOf(projectId, dataMode, bucket.since, untilOf(bucket, Date.now()), level)).count,
    staleTime: filling ? 60_000 : 10 * 60_000,
    refetchInterval: filling ? 60_000 : 10 * 60_000,
    enabled,
  };
}

function useSeries(projectId: string, dataMode: DataMode, span: TimeWindow, enabled: boolean): Loadable<SeriesPoint[]> {
  const { buckets } = span;
  const combine = useCallback(
    (results: { data?: number; error: Error | null; refetch: () => unknown }[]): Loadable<SeriesPoint[]> => {
      const error = results.find((result) => result.error)?.error ?? null;
      const refetch = () => results.filter((result) => result.error).forEach((result) => result.refetch());
      // Counts come in pairs per bucket: every event, then the errors.
      if (results.some((result) => result.data === undefined)) return { data: undefined, error, refetch };
      return { data: buckets.map((bucket, index) => ({ start: bucket.start, events: results[2 * index]!.data!, errors: results[2 * index + 1]!.data! })), error, refetch };
    },
    [buckets],
  );
  return useQueries({
    queries: buckets.flatMap((bucket) => [bucketCount(projectId, dataMode, bucket, undefined, enabled), bucketCount(projectId, dataMode, bucket, "error", enabled)]),
    combine,
  });
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
