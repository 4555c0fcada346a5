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

/**
 * Whether no event can match two of the steps: every pair names a field (step or screen) with
 * different values. Then a count of a user's events bounds the events of each step.
 */
export function disjointSteps(filters: readonly StepFilter[]): boolean {
  const differ = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a !== b;
  return filters.every((a, i) => filters.slice(i + 1).every((b) => differ(a.step_name, b.step_name) || differ(a.screen_name, b.screen_name)));
}

/**
 * Bits of one letter of an order string ("A" + bits), one letter per step k >= 1, comparing the
 * step's first and last time with the previous step's (strictly later; a missing time is never
 * later). The last step has no first time and step 0 no last time: those bits are 0.
 */
export const ORDER_BITS = { firstAfterFirst: 1, firstAfterLast: 2, lastAfterFirst: 4, lastAfterLast: 8 } as const;

/**
 * Steps of a closed funnel reached by a user who did step `from` both at or before and after the
 * previous step, when every step between the first and the last has at most two events, its first
 * and its last (so the step is reached at its last time), given their `order` letters. From there
 * each step follows at its first time when that is later than the previous step's time, else at
 * its last time when that is (the only other event), else the user stops.
 */
export function closedStepsFromOrder(order: string, from: number): number {
  let atLast = true;
  let reached = from + 1;
  for (let k = from + 1; k <= order.length; k += 1) {
    const bits = order.charCodeAt(k - 1) - 65;
    const firstFollows: boolean = (bits & (atLast ? ORDER_BITS.firstAfterLast : ORDER_BITS.firstAfterFirst)) !== 0;
    const lastFollows: boolean = (bits & (atLast ? ORDER_BITS.lastAfterLast : ORDER_BITS.lastAfterFirst)) !== 0;
    if (!firstFollows && !lastFollows) break;
    atLast = !firstFollows;
    reached = k + 1;
  }
  return reached;
}
