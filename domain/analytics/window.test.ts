import { describe, expect, it } from "vitest";
import { round2, percentOf } from "./numbers.ts";
import { retainedWindow, splitHours } from "./window.ts";

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
