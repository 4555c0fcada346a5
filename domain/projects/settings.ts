/** Project settings a PATCH may change, their defaults, and the colours projects are given. */

export const ISSUE_ALERT_FREQUENCIES = ["none", "hourly", "6_hourly", "daily", "weekly"] as const;
export type IssueAlertFrequency = (typeof ISSUE_ALERT_FREQUENCIES)[number];

/** Overrides stored per project; null means "use the default". */
export const DEFAULTS = {
  retention_days_events: 120,
  retention_days_metrics: 365,
  retention_days_funnels: 365,
  attachment_user_quota_bytes: 262_144_000,
  attachment_project_quota_bytes: 5_368_709_120,
  issue_alert_frequency: "daily" as IssueAlertFrequency,
} as const;

export type OverrideField = keyof typeof DEFAULTS;
export const OVERRIDE_FIELDS = Object.keys(DEFAULTS) as OverrideField[];

/** Every field `ProjectUpdated.changes` may name. */
export const UPDATABLE_FIELDS = ["name", "color", ...OVERRIDE_FIELDS] as const;
export type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

/**
 * Twelve distinct hues that stay readable on light and dark backgrounds. A new project takes the
 * first colour no active project of its team uses; once all are taken, the least used one.
 */
export const PALETTE = [
  "#4F46E5",
  "#0EA5E9",
  "#10B981",
  "#F59E0B",
  "#EF4444",
  "#8B5CF6",
  "#EC4899",
  "#14B8A6",
  "#F97316",
  "#84CC16",
  "#6366F1",
  "#06B6D4",
] as const;

export function pickColor(usedColors: readonly string[]): string {
  const uses = new Map<string, number>(PALETTE.map((color) => [color, 0]));
  for (const color of usedColors) {
    const key = color.toUpperCase();
    if (uses.has(key)) uses.set(key, uses.get(key)! + 1);
  }
  let best: string = PALETTE[0];
  for (const color of PALETTE) if (uses.get(color)! < uses.get(best)!) best = color;
  return best;
}
