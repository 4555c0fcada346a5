import { NotificationLink } from "./notification-link.tsx";
import { useInboxChanges, type Notification } from "./queries.ts";
import { When } from "../ui/format.tsx";


/** One notification: what it says, when, and the buttons that mark or delete it. */
export function NotificationItem({ notification }: { notification: Notification }) {
  const { setRead, remove } = useInboxChanges();
  const isRead = notification.read_at !== null;
  const busy = setRead.isPending || remove.isPending;
  const failure = setRead.error ?? remove.error;
  // Following the link is reading it; the badge drops without a second click.
  const markReadOnFollow = () => {
    if (!isRead) setRead.mutate({ id: notification.id, read: true });
  };

  return (
    <li className={`card notification ${isRead ? "read" : "unread-item"}`} aria-label={notification.title}>
      <div className="notification-text">
        <h2>
          {!isRead && <span className="sr-only">Unread: </span>}
          <NotificationLink link={notification.link} onFollow={markReadOnFollow}>
            {notification.title}
          </NotificationLink>
        </h2>
        <p className="notification-body">{notification.body}</p>
        <p className="muted">
          <When at={notification.created_at} /> · {notification.type}
        </p>
        {failure && (
          <p className="state error" role="alert">
            {failure.message}
          </p>
        )}
      </div>
      <div className="notification-actions">
        <button type="button" className="secondary" disabled={busy} onClick={() => setRead.mutate({ id: notification.id, read: !isRead })}>
          {isRead ? "Mark unread" : "Mark read"}
        </button>
        <button type="button" className="secondary danger" disabled={busy} onClick={() => remove.mutate(notification.id)}>
          Delete
        </button>
      </div>
    </li>
  );
}
