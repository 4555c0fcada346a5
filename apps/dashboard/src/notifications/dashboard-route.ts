const DASHBOARD = "/dashboard";

/**
 * The route inside this dashboard a notification's link points at, or null for any other page.
 * Links are written with the service's public base URL, which need not be the origin this browser
 * uses (a proxy, a local address), so the path decides: what is under /dashboard is ours.
 */
export function dashboardRoute(link: string, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(link, origin);
  } catch {
    return null;
  }
  if (url.pathname !== DASHBOARD && !url.pathname.startsWith(`${DASHBOARD}/`)) return null;
  return `${url.pathname.slice(DASHBOARD.length) || "/"}${url.search}${url.hash}`;
}
