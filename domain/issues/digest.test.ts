import { describe, expect, it } from "vitest";
import { digestPeriod } from "./digest.ts";

const at = (iso: string) => new Date(iso);

describe("digestPeriod", () => {
  it("sends nothing for none", () => {
    expect(digestPeriod("none", at("2026-11-26T10:30:00Z"))).toBeNull();
  });

  it("covers the last whole hour", () => {
    expect(digestPeriod("hourly", at("2026-11-26T10:30:00Z"))).toEqual({ start: "2026-11-26T09:00:00.000Z", end: "2026-11-26T10:00:00.000Z" });
    expect(digestPeriod("hourly", at("2026-11-26T10:00:00Z"))).toEqual({ start: "2026-11-26T09:00:00.000Z", end: "2026-11-26T10:00:00.000Z" });
  });

  it("ends 6-hourly periods at 00, 06, 12 and 18 UTC", () => {
    expect(digestPeriod("6_hourly", at("2026-11-26T05:59:00Z"))).toEqual({ start: "2026-11-25T18:00:00.000Z", end: "2026-11-26T00:00:00.000Z" });
    expect(digestPeriod("6_hourly", at("2026-11-26T13:10:00Z"))).toEqual({ start: "2026-11-26T06:00:00.000Z", end: "2026-11-26T12:00:00.000Z" });
  });

  it("ends daily periods at 09:00 UTC, before and after it", () => {
    expect(digestPeriod("daily", at("2026-11-26T08:59:00Z"))).toEqual({ start: "2026-11-24T09:00:00.000Z", end: "2026-11-25T09:00:00.000Z" });
    expect(digestPeriod("daily", at("2026-11-26T09:00:00Z"))).toEqual({ start: "2026-11-25T09:00:00.000Z", end: "2026-11-26T09:00:00.000Z" });
  });

  it("ends weekly periods on Mondays at 09:00 UTC", () => {
    // 2026-11-23 is a Monday.
    expect(digestPeriod("weekly", at("2026-11-26T12:00:00Z"))).toEqual({ start: "2026-11-16T09:00:00.000Z", end: "2026-11-23T09:00:00.000Z" });
    expect(digestPeriod("weekly", at("2026-11-23T08:00:00Z"))).toEqual({ start: "2026-11-09T09:00:00.000Z", end: "2026-11-16T09:00:00.000Z" });
    expect(digestPeriod("weekly", at("2026-11-23T09:00:00Z"))).toEqual({ start: "2026-11-16T09:00:00.000Z", end: "2026-11-23T09:00:00.000Z" });
  });
});
