import { z } from "zod";
import { DATA_MODES, retainedWindow, type TimeWindow } from "../../../domain/analytics/window.ts";
import { ENVIRONMENTS } from "../../../domain/ingest/rules.ts";
import { DEFAULTS } from "../../../domain/projects/settings.ts";
import { invalid } from "../../../domain/shared/errors.ts";
import type { ProjectRow } from "../../../projections/directory/catalog-queries.ts";
import { parseInstant } from "../listing.ts";
import { uuid } from "../validation.ts";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Query fields every analytics route shares. */
export const windowFields = {
  since: z.string().min(1).max(64).optional(),
  until: z.string().min(1).max(64).optional(),
  data_mode: z.enum(DATA_MODES).default("production"),
};

/** A free-text filter value (app version, device model, user id...). */
export const textFilter = z.string().min(1).max(255).optional();
export const environmentFilter = z.enum(ENVIRONMENTS).optional();

/** The narrowing of the cross-project routes. */
export const scopeFields = { team_id: uuid.optional(), project_id: uuid.optional(), app_id: uuid.optional() };

/**
 * `since` (relative or ISO, default `defaultSpanMs` before now) to `until` (default now).
 * @throws AppError 400 for an unreadable time or a window that ends before it starts
 */
export function requestedWindow(query: { since?: string; until?: string }, defaultSpanMs: number, now = Date.now()): TimeWindow {
  const since = query.since === undefined ? new Date(now - defaultSpanMs) : parseInstant(query.since, "since", now);
  const until = query.until === undefined ? new Date(now) : parseInstant(query.until, "until", now);
  if (since.getTime() > until.getTime()) throw invalid("since: must not be after until");
  return { since, until };
}

export type RetentionKind = "metrics" | "funnels";

/** The project's retention in force for metric or funnel events, in days. */
export function retentionDays(project: ProjectRow, kind: RetentionKind): number {
  return kind === "metrics"
    ? (project.retention_days_metrics ?? DEFAULTS.retention_days_metrics)
    : (project.retention_days_funnels ?? DEFAULTS.retention_days_funnels);
}

/** The part of `window` the project still serves, or null when all of it is past retention. */
export const servedWindow = (project: ProjectRow, kind: RetentionKind, window: TimeWindow, now = Date.now()) =>
  retainedWindow(window, retentionDays(project, kind), now);

/** The apps a query reads: the project's active apps, narrowed to `appId` when given. */
export const narrowApps = (appIds: readonly string[], appId: string | undefined): string[] =>
  appId === undefined ? [...appIds] : appIds.filter((id) => id === appId.toLowerCase());
