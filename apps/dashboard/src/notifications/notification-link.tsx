import type { ReactNode } from "react";
import { Link } from "react-router";

const DASHBOARD = "/dashboard";

/**
 * The route inside this dashboard a notification's link points at, or null for any other page.
 * Links are written with the service's public base URL, which need not be the origin this browser
 * uses (a proxy, a local address), so the path decides: what is under /dashboard is ours.
 */
export function dashboardRoute(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link, window.location.origin);
  } catch {
    return null;
  }
  if (url.pathname !== DASHBOARD && !url.pathname.startsWith(`${DASHBOARD}/`)) return null;
  return `${url.pathname.slice(DASHBOARD.length) || "/"}${url.search}${url.hash}`;
}

/** The notification's title as a link to what it is about: a route here, another page as a plain link, or no link at all. */
export function NotificationLink({ link, onFollow, children }: { link: string | null; onFollow: () => void; children: ReactNode }) {
  if (link === null) return <>{children}</>;
  const route = dashboardRoute(link);
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
