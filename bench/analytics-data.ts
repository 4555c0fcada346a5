import { randomUUID } from "node:crypto";
import type { FunnelEventRow } from "../domain/funnels/derive.ts";
import type { MetricEventRow, MetricPhase } from "../domain/metrics/derive.ts";
import { timeOrderedId } from "../domain/shared/ids.ts";
import type { SeededRandom } from "../test/support/seeded-random.ts";

const DAY_MS = 86_400_000;

export type Target = { projectId: string; appId: string; apiKeyId: string };

const VERSIONS = ["3.1.0", "3.2.0", "3.2.1", "3.3.0"];
const DEVICES = ["iPhone14,2", "iPhone15,2", "iPhone15,3", "iPhone16,1", "iPad13,4", "iPad14,1"];
const OS = ["17.5", "17.6", "18.0"];
const ERRORS = ["timeout", "network", "card_declined", "out_of_stock", "auth_expired", "rate_limited", "server_500", "validation", "cancelled_by_os", "unknown"];
/** Phase mix of a checkout-like operation: most starts complete, some fail or are cancelled; records are standalone. */
const PHASES: [MetricPhase, number][] = [["start", 0.4], ["complete", 0.33], ["fail", 0.05], ["cancel", 0.04], ["record", 0.18]];

function phaseOf(random: SeededRandom): MetricPhase {
  let roll = random.next();
  for (const [phase, share] of PHASES) {
    if (roll < share) return phase;
    roll -= share;
  }
  return "record";
}

/** A duration in ms with a long tail, as operation timings have. */
const durationOf = (random: SeededRandom) => Math.round(40 * Math.exp(random.next() * 4.5) + random.next() * 20);

/**
 * `count` metric events of `slug` for one day (starting at `dayStartMs`, times ascending as an
 * SDK fleet sends them), from `users` users; 3 % development data.
 */
export function metricDay(target: Target, slug: string, dayStartMs: number, count: number, users: number, random: SeededRandom): MetricEventRow[] {
  const times = Array.from({ length: count }, () => dayStartMs + Math.floor(random.next() * DAY_MS)).sort((a, b) => a - b);
  return times.map((ms) => {
    const phase = phaseOf(random);
    const timed = phase === "complete" || phase === "fail";
    const environment = random.next() < 0.85 ? "ios" : "ipados";
    return {
      id: timeOrderedId(ms),
      project_id: target.projectId,
      app_id: target.appId,
      client_event_id: null,
      session_id: randomUUID(),
      user_id: `bench-user-${Math.floor(random.next() * users)}`,
      api_key_id: target.apiKeyId,
      metric_slug: slug,
      phase,
      tracking_id: randomUUID(),
      duration_ms: timed ? durationOf(random) : null,
      error: phase === "fail" ? random.pick(ERRORS) : null,
      attributes: { plan: random.next() < 0.3 ? "pro" : "free" },
      environment,
      os_version: random.pick(OS),
      app_version: random.pick(VERSIONS),
      device_model: random.pick(environment === "ios" ? DEVICES.slice(0, 4) : DEVICES.slice(4)),
      build_number: null,
      is_dev: random.next() < 0.03,
      timestamp: new Date(ms).toISOString(),
      received_at: new Date(ms + 2_000).toISOString(),
    };
  });
}

/**
 * The step events of users `from` to `to` of a 5-step funnel: everyone does step 0 at a random
 * time in the window, each further step follows minutes later with a 70 % chance; one in five
 * users repeats a step later, one in twenty does a step before the one it follows. 15 % of the
 * users are on a tablet (ipados), the rest on a phone (ios).
 */
export function funnelUsers(target: Target, steps: readonly string[], from: number, to: number, windowStartMs: number, windowMs: number, random: SeededRandom): FunnelEventRow[] {
  const rows: FunnelEventRow[] = [];
  const row = (user: string, step: string, ms: number, version: string, environment: string): FunnelEventRow => ({
    id: timeOrderedId(ms),
    project_id: target.projectId,
    app_id: target.appId,
    client_event_id: null,
    session_id: randomUUID(),
    user_id: user,
    step_name: step,
    screen_name: `${step}-screen`,
    environment,
    app_version: version,
    os_version: null,
    device_model: null,
    is_dev: false,
    timestamp: new Date(ms).toISOString(),
    received_at: new Date(ms + 2_000).toISOString(),
  });
  for (let n = from; n < to; n += 1) {
    const user = `funnel-user-${n}`;
    const version = random.pick(VERSIONS);
    // Phones and tablets, as the metric events have: a breakdown by environment has two groups to build.
    const environment = random.next() < 0.85 ? "ios" : "ipados";
    let ms = windowStartMs + Math.floor(random.next() * (windowMs - 3 * 3_600_000));
    for (let k = 0; k < steps.length; k += 1) {
      if (k > 0 && random.next() > 0.7) break;
      ms += Math.floor(random.next() * 600_000) + 1_000;
      const early = k > 0 && random.next() < 0.05 ? -Math.floor(random.next() * 900_000) : 0;
      rows.push(row(user, steps[k]!, ms + early, version, environment));
      if (random.next() < 0.2) rows.push(row(user, steps[k]!, ms + 3_600_000, version, environment));
    }
  }
  return rows;
}
