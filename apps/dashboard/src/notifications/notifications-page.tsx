import { useInfiniteQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { useSearchParam } from "../ui/project-picker.tsx";
import { Segmented } from "../ui/segmented.tsx";
import { Empty, Loaded } from "../ui/states.tsx";
import { NotificationItem } from "./notification-item.tsx";
import { NOTIFICATIONS_KEY, useInboxChanges, useUnreadCount, type ReadState } from "./queries.ts";
import "./notifications.css";

const READ_STATES: { value: ReadState; label: string }[] = [
  { value: "all", label: "All" },
  { value: "unread", label: "Unread" },
  { value: "read", label: "Read" },
];
const readStateOf = (value: string | null): ReadState => READ_STATES.find((state) => state.value === value)?.value ?? "all";

const PAGE_SIZE = 50;

const EMPTY: Record<ReadState, string> = {
  all: "No notifications. New feedback, issue digests and the jobs you start with notify on show up here.",
  unread: "Nothing unread.",
  read: "No read notifications.",
};

/**
 * The signed-in user's inbox, newest first; `?read_state=unread` (in the URL) narrows it. Older
 * notifications load below on demand: the inbox is read from the top, so more pages are not kept
 * in the URL.
 */
export function NotificationsPage() {
  const [stateParam, setState] = useSearchParam("read_state");
  const readState = readStateOf(stateParam);
  const unread = useUnreadCount();
  const { markAll } = useInboxChanges();
  const inbox = useInfiniteQuery({
    queryKey: [...NOTIFICATIONS_KEY, "list", readState],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/notifications", { params: { query: { read_state: readState, limit: PAGE_SIZE, cursor: pageParam } } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more && last.cursor !== null ? last.cursor : undefined),
  });
  const unreadCount = unread.data?.count ?? 0;

  return (
    <section aria-labelledby="page-title" className="notifications">
      <div className="page-head">
        <h1 id="page-title">Notifications</h1>
        <div className="controls">
          <Segmented legend="Show" name="read_state" options={READ_STATES} value={readState} onChange={(value) => setState(value === "all" ? null : value)} />
          <button type="button" onClick={() => markAll.mutate()} disabled={unreadCount === 0 || markAll.isPending}>
            Mark all read
          </button>
        </div>
      </div>
      {markAll.error && (
        <p className="state error" role="alert">
          Could not mark them read: {markAll.error.message}
        </p>
      )}
      <Loaded query={{ data: inbox.data, error: inbox.error, refetch: inbox.refetch }} label="Loading notifications">
        {(data) => {
          const notifications = data.pages.flatMap((page) => page.notifications);
          if (notifications.length === 0) return <Empty>{EMPTY[readState]}</Empty>;
          return (
            <>
              <ul className="inbox">
                {notifications.map((notification) => (
                  <NotificationItem key={notification.id} notification={notification} />
                ))}
              </ul>
              {inbox.hasNextPage && (
                <button type="button" className="more" onClick={() => void inbox.fetchNextPage()} disabled={inbox.isFetchingNextPage}>
                  {inbox.isFetchingNextPage ? "Loading…" : "Show older"}
                </button>
              )}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
