import { z } from "zod";
import { retainedWindow, retentionHorizon, type DataMode, type TimeWindow } from "../../../domain/analytics/window.ts";
import { ENVIRONMENTS, MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { DEFAULTS } from "../../../domain/projects/settings.ts";
import { invalid } from "../../../domain/shared/errors.ts";
import type { ProjectRow } from "../../../projections/directory/catalog-queries.ts";
import { dataModeParam, parseBounds, sinceParam, untilParam } from "../listing.ts";
import { projectParams } from "../schemas/common.ts";
import { chars, definitionSlug, uuid } from "../validation.ts";

/** `:projectId` and `:slug` of a metric or funnel query (slugs as long as a metric message allows). */
export const definitionParams = projectParams.extend({ slug: definitionSlug });

/** Query fields every analytics route shares. */
export const windowFields = { since: sinceParam, until: untilParam, data_mode: dataModeParam };

/** A free-text filter value (app version, device model, user id...). */
export const textFilter = chars(MAX_FIELD_CHARS).optional();
export const environmentFilter = z.enum(ENVIRONMENTS).optional();

/** The narrowing of the cross-project routes. */
export const scopeFields = { team_id: uuid.optional(), project_id: uuid.optional(), app_id: uuid.optional() };

/**
 * `since` (relative or ISO, default `defaultSpanMs` before now) to `until` (default now).
 * @throws DomainError invalid for an unreadable time or a window that ends before it starts
 */
export function requestedWindow(query: { since?: string; until?: string }, defaultSpanMs: number, now = Date.now()): TimeWindow {
  const bounds = parseBounds(query, now);
  const since = bounds.since ?? new Date(now - defaultSpanMs);
  const until = bounds.until ?? new Date(now);
  if (since.getTime() > until.getTime()) throw invalid("since: must not be after until");
  return { since, until };
}

export type RetentionKind = "metrics" | "funnels";

/** The project's retention in force for metric or funnel events, in days (its override, else the default). */
function retentionDays(project: ProjectRow, kind: RetentionKind): number {
  const field = `retention_days_${kind}` as const;
  return project[field] ?? DEFAULTS[field];
}

/** The earliest instant of `kind` events the project still serves, in ms. */
export const servedSince = (project: ProjectRow, kind: RetentionKind, now = Date.now()): number => retentionHorizon(retentionDays(project, kind), now);

/**
 * Where an analytics query reads in one project: the part of the window the project still
 * serves, its active apps narrowed to `appId` when given (none when all of the window is past
 * retention), and the data mode.
 */
export function projectScope(
  project: ProjectRow,
  kind: RetentionKind,
  apps: readonly string[],
  request: { window: TimeWindow; dataMode: DataMode; appId?: string },
  now = Date.now(),
) {
  const window = retainedWindow(request.window, retentionDays(project, kind), now);
  const appIds = window === null ? [] : request.appId === undefined ? [...apps] : apps.filter((id) => id === request.appId);
  return { projectId: project.id, appIds, dataMode: request.dataMode, ...(window ?? request.window) };
}
