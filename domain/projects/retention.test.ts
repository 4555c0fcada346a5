import { describe, expect, it } from "vitest";
import { effectiveRetention, longestRetentionDays, retentionPolicy } from "./retention.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-15T12:00:00.000Z");
const daysBefore = (days: number) => new Date(NOW - days * DAY);

describe("retention", () => {
  it("takes each override, or the default where there is none", () => {
    const retention = effectiveRetention({ retention_days_events: 30, retention_days_metrics: null, retention_days_funnels: 400 });
    expect(retention).toEqual({ events: 30, metrics: 365, funnels: 400 });
    expect(longestRetentionDays(retention)).toBe(400);
  });

  it("gives each project its cutoff, and a project it does not know the defaults", () => {
    const policy = retentionPolicy([{ projectId: "p", retention: { events: 30, metrics: 365, funnels: 365 } }], NOW);
    expect(policy.cutoff("p", "events")).toEqual(daysBefore(30));
    expect(policy.cutoff("gone", "events")).toEqual(daysBefore(120));
  });

  it("has rows expired everywhere only past the longest retention, the default included, and kept everywhere up to the shortest", () => {
    const shorter = retentionPolicy([{ projectId: "p", retention: { events: 30, metrics: 10, funnels: 365 } }], NOW);
    expect(shorter.expiredEverywhere("events")).toEqual(daysBefore(120));
    expect(shorter.keptEverywhere("events")).toEqual(daysBefore(30));
    const longer = retentionPolicy([{ projectId: "p", retention: { events: 30, metrics: 10, funnels: 365 } }, { projectId: "q", retention: { events: 800, metrics: 365, funnels: 365 } }], NOW);
    expect(longer.expiredEverywhere("events")).toEqual(daysBefore(800));
    expect(longer.expiredEverywhere("metrics")).toEqual(daysBefore(365));
    expect(longer.keptEverywhere("metrics")).toEqual(daysBefore(10));
  });
});
