import { describe, expect, it } from "vitest";
import { round2, percentOf } from "./numbers.ts";
import { retainedWindow, splitForRollups, splitHours, type RollupSplit } from "./window.ts";

const t = (iso: string) => new Date(iso);

describe("splitHours", () => {
  it("reads whole hours from the rollups and the partial hours at each end from events", () => {
    expect(splitHours({ since: t("2026-01-01T01:30:00Z"), until: t("2026-01-01T05:10:00Z") })).toEqual({
      rollupFrom: t("2026-01-01T02:00:00Z"),
      rollupTo: t("2026-01-01T05:00:00Z"),
    });
    expect(splitHours({ since: t("2026-01-01T01:00:00Z"), until: t("2026-01-01T03:00:00Z") })).toEqual({
      rollupFrom: t("2026-01-01T01:00:00Z"),
      rollupTo: t("2026-01-01T03:00:00Z"),
    });
  });

  it("leaves a window without a whole hour to the events", () => {
    const until = t("2026-01-01T02:20:00Z");
    expect(splitHours({ since: t("2026-01-01T01:30:00Z"), until })).toEqual({ rollupFrom: until, rollupTo: until });
    expect(splitHours({ since: t("2026-01-01T01:30:00Z"), until: t("2026-01-01T01:40:00Z") }).rollupFrom).toEqual(t("2026-01-01T01:40:00Z"));
  });
});

describe("splitForRollups", () => {
  it("reads whole hours, the whole minutes around them and the partial minutes at the edges", () => {
    expect(splitForRollups({ since: t("2026-01-01T01:30:20Z"), until: t("2026-01-01T05:10:30Z") })).toEqual({
      hours: { from: t("2026-01-01T02:00:00Z"), to: t("2026-01-01T05:00:00Z") },
      minutes: [
        { from: t("2026-01-01T01:31:00Z"), to: t("2026-01-01T02:00:00Z") },
        { from: t("2026-01-01T05:00:00Z"), to: t("2026-01-01T05:10:00Z") },
      ],
      rowsBefore: t("2026-01-01T01:31:00Z"),
      rowsFrom: t("2026-01-01T05:10:00Z"),
    });
  });

  it("gives an hour-long window that starts mid-hour no whole hour", () => {
    expect(splitForRollups({ since: t("2026-01-01T01:30:20.5Z"), until: t("2026-01-01T02:30:20.5Z") })).toEqual({
      hours: null,
      minutes: [{ from: t("2026-01-01T01:31:00Z"), to: t("2026-01-01T02:30:00Z") }],
      rowsBefore: t("2026-01-01T01:31:00Z"),
      rowsFrom: t("2026-01-01T02:30:00Z"),
    });
  });

  it("leaves a window on boundaries no minute spans, and keeps until in the rows", () => {
    expect(splitForRollups({ since: t("2026-01-01T01:00:00Z"), until: t("2026-01-01T03:00:00Z") })).toEqual({
      hours: { from: t("2026-01-01T01:00:00Z"), to: t("2026-01-01T03:00:00Z") },
      minutes: [],
      rowsBefore: t("2026-01-01T01:00:00Z"),
      rowsFrom: t("2026-01-01T03:00:00Z"),
    });
  });

  it("reads a window without a whole minute from the rows alone", () => {
    const since = t("2026-01-01T01:30:10Z");
    expect(splitForRollups({ since, until: t("2026-01-01T01:31:05Z") })).toEqual({ hours: null, minutes: [], rowsBefore: since, rowsFrom: since });
    expect(splitForRollups({ since, until: since })).toEqual({ hours: null, minutes: [], rowsBefore: since, rowsFrom: since });
  });

  /** How many parts of the split read the instant `ms`. */
  const readers = (split: RollupSplit, window: { since: number; until: number }, ms: number) => {
    const inSpan = (span: { from: Date; to: Date }) => span.from.getTime() <= ms && ms < span.to.getTime();
    return (
      (split.hours && inSpan(split.hours) ? 1 : 0) +
      split.minutes.filter(inSpan).length +
      (window.since <= ms && ms < split.rowsBefore.getTime() ? 1 : 0) +
      (split.rowsFrom.getTime() <= ms && ms <= window.until ? 1 : 0)
    );
  };

  it("reads every instant of the window exactly once and none outside it", () => {
    const base = Date.parse("2026-01-01T00:00:00Z");
    // Deterministic pseudo-random windows, with ends often on minute and hour boundaries.
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
    const point = () => base + [next(3) * 3_600_000, next(120) * 60_000, next(4) === 0 ? 0 : next(60_000)].reduce((a, b) => a + b, 0);
    for (let run = 0; run < 200; run++) {
      const [a, b] = [point(), point()];
      const window = { since: Math.min(a, b), until: Math.max(a, b) };
      const split = splitForRollups({ since: new Date(window.since), until: new Date(window.until) });
      const edges = [split.rowsBefore, split.rowsFrom, ...(split.hours ? [split.hours.from, split.hours.to] : []), ...split.minutes.flatMap((s) => [s.from, s.to])];
      const probes = [window.since - 1, window.since, window.until, window.until + 1, ...edges.flatMap((edge) => [edge.getTime() - 1, edge.getTime()])];
      for (const ms of [...probes, ...Array.from({ length: 20 }, point)]) {
        expect(readers(split, window, ms)).toBe(window.since <= ms && ms <= window.until ? 1 : 0);
      }
    }
  });
});

describe("retainedWindow", () => {
  const now = Date.parse("2026-03-01T00:00:00Z");
  it("raises since to the retention horizon and drops a window past it", () => {
    expect(retainedWindow({ since: t("2026-01-01T00:00:00Z"), until: t("2026-03-01T00:00:00Z") }, 10, now)).toEqual({
      since: t("2026-02-19T00:00:00Z"),
      until: t("2026-03-01T00:00:00Z"),
    });
    expect(retainedWindow({ since: t("2026-01-01T00:00:00Z"), until: t("2026-01-05T00:00:00Z") }, 10, now)).toBeNull();
  });
});

describe("numbers", () => {
  it("rounds to two decimals half up and gives 0 % of nothing", () => {
    expect(round2(1.005)).toBe(1.01);
    expect(round2(2 / 3)).toBe(0.67);
    expect(percentOf(1, 3)).toBe(33.33);
    expect(percentOf(5, 0)).toBe(0);
  });
});
