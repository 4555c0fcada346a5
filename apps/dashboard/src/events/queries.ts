import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { api, ApiError, unwrap, type Answer } from "../api/client.ts";
import type { EventListQuery } from "./filters.ts";

export type EventItem = Answer<"/v1/events">["events"][number];
export type EventDetail = Answer<"/v1/events/{id}">;
export type AttachmentItem = Answer<"/v1/attachments">["attachments"][number];

/** Rows per page: a screenful or two; the API serves up to 200. */
export const PAGE_SIZE = 50;

/** One page of the list; the previous page stays on screen while the next one loads. */
export function useEventPage(query: EventListQuery) {
  return useQuery({
    queryKey: ["events", "page", query],
    queryFn: () => unwrap(api.GET("/v1/events", { params: { query: { ...query, limit: PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });
}

/** The apps of a project, for the app filter. */
export function useProjectApps(projectId: string | undefined) {
  return useQuery({
    queryKey: ["project", projectId],
    queryFn: () => unwrap(api.GET("/v1/projects/{id}", { params: { path: { id: projectId! } } })),
    enabled: projectId !== undefined,
    staleTime: 5 * 60_000,
  });
}

/** How long a missing event is asked for again: one opened from the live tail may not be stored yet. */
const STORE_LAG_RETRIES = 5;
const lagOrRetryable = (failures: number, error: Error) =>
  error instanceof ApiError && (error.status === 404 || error.status === 429 || error.status === 503) && failures < STORE_LAG_RETRIES;

/** An event and its attachments, asked for together. Events do not change once stored: no polling. */
export function useEventDetail(id: string) {
  const event = useQuery({
    queryKey: ["events", "detail", id],
    queryFn: () => unwrap(api.GET("/v1/events/{id}", { params: { path: { id } } })),
    refetchInterval: false,
    staleTime: Infinity,
    retry: lagOrRetryable,
    retryDelay: 1_000,
  });
  const attachments = useQuery({
    queryKey: ["attachments", "of-event", id],
    queryFn: () => unwrap(api.GET("/v1/attachments", { params: { query: { event_id: id, limit: 200 } } })),
  });
  return { event, attachments };
}

/**
 * Download links of the uploaded attachments, all asked for at once. A link is valid for 60
 * seconds, so each is fetched again before it expires.
 */
export function useDownloadLinks(attachments: readonly AttachmentItem[]) {
  return useQueries({
    queries: attachments
      .filter((attachment) => attachment.uploaded_at !== null)
      .map((attachment) => ({
        queryKey: ["attachments", "detail", attachment.id],
        queryFn: () => unwrap(api.GET("/v1/attachments/{id}", { params: { path: { id: attachment.id } } })),
        staleTime: 40_000,
        refetchInterval: 45_000,
      })),
  });
}
