import type { StepFilter } from "./analytics.ts";

/** A step event as funnel logic sees it. */
export type StepEvent = { step_name: string; screen_name: string | null; time: number };

/** An event matches a step when it has every field the step's filter names. */
const matchesStep = (filter: StepFilter, event: StepEvent): boolean =>
  (filter.step_name === undefined || event.step_name === filter.step_name) && (filter.screen_name === undefined || event.screen_name === filter.screen_name);

/**
 * How many steps of a closed funnel one user's events reach: in time order, step 0 is the first
 * event matching it, each next step the first matching event strictly later than the previous
 * step (an event at the same instant does not follow it).
 */
export function closedStepsReached(events: readonly StepEvent[], filters: readonly StepFilter[]): number {
  let reached = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const event of [...events].sort((a, b) => a.time - b.time)) {
    if (reached === filters.length) break;
    if (matchesStep(filters[reached]!, event) && (reached === 0 || event.time > last)) {
      reached += 1;
      last = event.time;
    }
  }
  return reached;
}
