import { retentionHorizon } from "../analytics/window.ts";
import { DEFAULTS } from "./settings.ts";

/** The read models with a retention of their own: events, metric events and funnel events. */
export const RETENTION_KINDS = ["events", "metrics", "funnels"] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** A project's retention in force, in days, per kind. */
export type Retention = Record<RetentionKind, number>;

/** A project's stored overrides: null means the default. */
export type RetentionOverrides = {
  retention_days_events: number | null;
  retention_days_metrics: number | null;
  retention_days_funnels: number | null;
};

export const DEFAULT_RETENTION: Retention = {
  events: DEFAULTS.retention_days_events,
  metrics: DEFAULTS.retention_days_metrics,
  funnels: DEFAULTS.retention_days_funnels,
};

export function effectiveRetention(overrides: RetentionOverrides): Retention {
  return {
    events: overrides.retention_days_events ?? DEFAULT_RETENTION.events,
    metrics: overrides.retention_days_metrics ?? DEFAULT_RETENTION.metrics,
    funnels: overrides.retention_days_funnels ?? DEFAULT_RETENTION.funnels,
  };
}

/** The longest of the three: how far back every read model of the project can still need a fact. */
export const longestRetentionDays = (retention: Retention): number => Math.max(retention.events, retention.metrics, retention.funnels);

/** The instant before which rows of a retention of `days` have expired at `nowMs` (as the analytics reads serve them). */
export const expiresBefore = (days: number, nowMs: number): Date => new Date(retentionHorizon(days, nowMs));

/** When rows expire, per project and kind, at one instant: what the retention cleanup applies. */
export type RetentionPolicy = {
  /** Rows of the project of `kind` with a time before this have expired (a project the directory no longer holds takes the defaults). */
  cutoff: (projectId: string, kind: RetentionKind) => Date;
  /** Before this, rows of `kind` have expired for every project: the longest retention of any project and the default. */
  expiredEverywhere: (kind: RetentionKind) => Date;
  /** From this on, no row of `kind` has expired for any project: the shortest retention. */
  keptEverywhere: (kind: RetentionKind) => Date;
};

export function retentionPolicy(projects: readonly { projectId: string; retention: Retention }[], nowMs: number): RetentionPolicy {
  const byProject = new Map(projects.map((project) => [project.projectId, project.retention]));
  const all = [DEFAULT_RETENTION, ...byProject.values()];
  const extreme = (kind: RetentionKind, pick: (...days: number[]) => number) => pick(...all.map((retention) => retention[kind]));
  return {
    cutoff: (projectId, kind) => expiresBefore((byProject.get(projectId) ?? DEFAULT_RETENTION)[kind], nowMs),
    expiredEverywhere: (kind) => expiresBefore(extreme(kind, Math.max), nowMs),
    keptEverywhere: (kind) => expiresBefore(extreme(kind, Math.min), nowMs),
  };
}
