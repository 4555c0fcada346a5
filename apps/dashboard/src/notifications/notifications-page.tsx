import { NotBuilt } from "../pages/not-built.tsx";

export function NotificationsPage() {
  return <NotBuilt title="Notifications" plan="Your notifications, newest first, and marking them read." routes={["GET /v1/notifications"]} />;
}
