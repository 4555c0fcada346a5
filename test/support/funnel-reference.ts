/** A step event as the reference sees it. */
export type StepTouch = { user: string; step_name: string; screen_name: string | null; time: number };
export type Filter = { step_name?: string; screen_name?: string };

const matches = (touch: StepTouch, filter: Filter) =>
  (filter.step_name === undefined || touch.step_name === filter.step_name) && (filter.screen_name === undefined || touch.screen_name === filter.screen_name);

/**
 * Users per step computed the slow, obvious way, to check the SQL against random data. Closed:
 * walk each user's events in time order, advancing to the next step on a matching event strictly
 * later than the previous step. Open: a user counts at every step up to the last one they did.
 */
export function referenceFunnel(touches: readonly StepTouch[], filters: readonly Filter[], mode: "open" | "closed"): number[] {
  const byUser = new Map<string, StepTouch[]>();
  for (const touch of touches) byUser.set(touch.user, [...(byUser.get(touch.user) ?? []), touch]);
  const counts = filters.map(() => 0);
  for (const events of byUser.values()) {
    let reached = 0;
    if (mode === "closed") {
      let last = Number.NEGATIVE_INFINITY;
      for (const event of [...events].sort((a, b) => a.time - b.time)) {
        if (reached < filters.length && matches(event, filters[reached]!) && (reached === 0 || event.time > last)) {
          reached += 1;
          last = event.time;
        }
      }
    } else {
      filters.forEach((filter, index) => {
        if (events.some((event) => matches(event, filter))) reached = Math.max(reached, index + 1);
      });
    }
    for (let k = 0; k < reached; k += 1) counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}
