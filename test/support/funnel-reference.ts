import { expect } from "vitest";
import { funnelQuery, getWhen, ingestAll, stepEvent, stepUsers } from "./analytics.ts";
import { projectWithApp } from "./catalog.ts";
import type { Client } from "./http.ts";
import type { SignedIn } from "./users.ts";

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

/** How `randomTouches` draws events: `screen` may draw from `random` too, after the step is drawn. */
export type TouchShape = { events: number; users: number; steps: readonly string[]; minutes: number; screen: (stepName: string, random: () => number) => string | null };

/**
 * Random step events of few users in `minutes` whole minutes from `startMs`: coarse times make
 * ties common, and few users make steps done on both sides of the previous one common.
 */
export function randomTouches(random: () => number, startMs: number, shape: TouchShape): StepTouch[] {
  return Array.from({ length: shape.events }, () => {
    const user = `r${Math.floor(random() * shape.users)}`;
    const stepName = shape.steps[Math.floor(random() * shape.steps.length)]!;
    const screen = shape.screen(stepName, random);
    return { user, step_name: stepName, screen_name: screen, time: startMs + Math.floor(random() * shape.minutes) * 60_000 };
  });
}

/**
 * Creates funnel `random` of `filters` in a new project, sends `touches` as step events and
 * expects the users per step of each of `modes` to equal the reference walk's.
 */
export async function expectReferenceCounts(http: Client, owner: SignedIn, filters: readonly Filter[], touches: readonly StepTouch[], modes: readonly ("open" | "closed")[]): Promise<void> {
  const project = await projectWithApp(http, owner.token, owner.teamId);
  const steps = filters.map((event_filter, index) => ({ name: `s${index}`, event_filter }));
  await http.post(`/v1/projects/${project.project.id}/funnels`, { name: "Random", slug: "random", steps }, { token: owner.token });
  await ingestAll(
    http,
    project,
    touches.map((touch) => stepEvent(touch.step_name, touch.user, new Date(touch.time).toISOString(), touch.screen_name ? { screen_name: touch.screen_name } : {})),
  );
  const open = referenceFunnel(touches, filters, "open");
  await getWhen(http, owner.token, `/v1/projects/${project.project.id}/funnels/random/query`, (body) => body.analytics.total_users === open[0]);
  for (const mode of modes) {
    expect(stepUsers(await funnelQuery(http, owner.token, project.project.id, "random", `mode=${mode}`)), mode).toEqual(referenceFunnel(touches, filters, mode));
  }
}
