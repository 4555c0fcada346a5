import type { ReactNode } from "react";
import { Link } from "react-router";
import { dashboardRoute } from "./dashboard-route.ts";

/** The notification's title as a link to what it is about: a route here, another page as a plain link, or no link at all. */
export function NotificationLink({ link, onFollow, children }: { link: string | null; onFollow: () => void; children: ReactNode }) {
  if (link === null) return <>{children}</>;
  const route = dashboardRoute(link, window.location.origin);
  if (route !== null)
    return (
      <Link to={route} onClick={onFollow}>
        {children}
      </Link>
    );
  return (
    <a href={link} onClick={onFollow} rel="noreferrer">
      {children}
    </a>
  );
}
