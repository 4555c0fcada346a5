import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap, type Answer } from "../api/client.ts";

export type Notification = Answer<"/v1/notifications">["notifications"][number];
export type ReadState = "all" | "unread" | "read";

/** Every notification query starts with this key: a change to one refreshes the list and the badge together. */
export const NOTIFICATIONS_KEY = ["notifications"] as const;

/** The SPEC's unread-count polling period: the badge is at most this late. */
const UNREAD_POLL_MS = 30_000;

export function useUnreadCount() {
  return useQuery({
    queryKey: [...NOTIFICATIONS_KEY, "unread-count"],
    queryFn: () => unwrap(api.GET("/v1/notifications/unread-count")),
    refetchInterval: UNREAD_POLL_MS,
    staleTime: UNREAD_POLL_MS,
  });
}

/** Marking, unmarking and deleting: each refreshes the inbox and the badge once it is done. */
export function useInboxChanges() {
  const queryClient = useQueryClient();
  const onSettled = () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
  const setRead = useMutation({
    mutationFn: ({ id, read }: { id: string; read: boolean }) => unwrap(api.PATCH("/v1/notifications/{id}", { params: { path: { id } }, body: { read } })),
    onSettled,
  });
  const remove = useMutation({ mutationFn: (id: string) => unwrap(api.DELETE("/v1/notifications/{id}", { params: { path: { id } } })), onSettled });
  const markAll = useMutation({ mutationFn: () => unwrap(api.POST("/v1/notifications/mark-all-read", { body: {} })), onSettled });
  return { setRead, remove, markAll };
}
