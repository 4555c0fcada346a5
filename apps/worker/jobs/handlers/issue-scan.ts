import type { DatabasePool } from "slonik";
import { errorEventsPage } from "../../../../projections/events/queries.ts";
import type { JobHandler } from "../job-context.ts";

const DEFAULT_WINDOW_HOURS = 24;
const DEFAULT_PAGE_SIZE = 500;

/**
 * `issue_scan`: walks the project's error events of the last `window_hours` (default 24, at most
 * 720) in pages of `page_size` (default 500), reporting progress per page. Grouping errors into
 * issues arrives with the issue detector; until then the scan reports what it examined.
 */
export function issueScan(pool: DatabasePool): JobHandler {
  return async ({ run, progress }) => {
    const windowHours = boundedInteger(run.params.window_hours, DEFAULT_WINDOW_HOURS, 1, 720, "window_hours");
    const pageSize = boundedInteger(run.params.page_size, DEFAULT_PAGE_SIZE, 1, 5_000, "page_size");
    const since = new Date(Date.now() - windowHours * 3_600_000);
    const apps = new Set<string>();
    const sessions = new Set<string>();
    let events = 0;
    let after: { timestamp: string; id: string } | null = null;
    for (;;) {
      const page = await errorEventsPage(pool, { projectId: run.projectId!, since, after, limit: pageSize });
      for (const event of page) {
        apps.add(event.app_id);
        sessions.add(event.session_id);
      }
      events += page.length;
      const last = page.at(-1);
      if (!last) break;
      after = { timestamp: last.timestamp, id: last.id };
      await progress(events, null, `examined ${events} error events`);
      if (page.length < pageSize) break;
    }
    return { window_hours: windowHours, apps: apps.size, events, sessions: sessions.size, issues_created: 0, regressed: 0, reopened: 0 };
  };
}

/** A whole-number parameter within bounds, or the default when absent. @throws Error naming the parameter */
export function boundedInteger(value: unknown, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`params.${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}
