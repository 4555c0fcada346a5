import { describe, expect, it } from "vitest";
import { compareVersions, isNewerVersion, parseVersion } from "./version.ts";

describe("compareVersions", () => {
  it.each([
    ["1.2.4", "1.2.3", 1],
    ["1.2.3", "1.2.4", -1],
    ["1.2.3", "1.2.3", 0],
    ["1.10.0", "1.9.9", 1],
    ["2", "1.99.99", 1],
    ["1.2", "1.2.0", 0],
    ["1.2.0.1", "1.2", 1],
    ["v1.2.3", "1.2.3", 0],
    ["V2.0.0", "v1.9.0", 1],
    ["1.2.3 (457)", "1.2.3 (456)", 1],
    ["1.2.3 (456)", "1.2.3 (457)", -1],
    ["1.2.3 (456)", "1.2.3", 0],
    ["1.2.3", "1.2.3 (999)", 0],
    ["1.2.3+12", "1.2.3+9", 1],
    ["1.2.4 (1)", "1.2.3 (999)", 1],
    ["1.2.3-beta.1", "1.2.3", -1],
    ["1.2.3", "1.2.3-rc.1", 1],
    ["1.2.3-beta.2", "1.2.3-beta.10", -1],
    ["1.2.3-rc.1", "1.2.3-beta.9", 1],
    ["1.2.3-alpha", "1.2.3-alpha.1", -1],
    ["1.2.3-1", "1.2.3-alpha", -1],
    ["1.2.4-beta.1", "1.2.3", 1],
    ["2024.05.02", "2024.05.01", 1],
    ["2024-05-01", "2024.05.01", 0],
    ["2024-12-01", "2024-05-30", 1],
    ["20240502", "20240501", 1],
    ["2024.5.1", "2024.05.01", 0],
  ])("%s vs %s is %i", (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
  });

  it.each([["latest", "1.0"], ["1.0", ""], ["1..2", "1.2"], ["abc", "abc"]])("%s vs %s is not comparable", (a, b) => {
    expect(compareVersions(a, b)).toBeNull();
  });

  it("reads surrounding whitespace away", () => {
    expect(parseVersion("  1.2.3 ")).toEqual({ release: [1, 2, 3], pre: [], build: null });
  });
});

describe("isNewerVersion", () => {
  it("is strict: equal and older never count", () => {
    expect(isNewerVersion("1.2.4", "1.2.3")).toBe(true);
    expect(isNewerVersion("1.2.3", "1.2.3")).toBe(false);
    expect(isNewerVersion("v1.2.3", "1.2.3 (12)")).toBe(false);
    expect(isNewerVersion("1.2.2", "1.2.3")).toBe(false);
  });

  it("never counts an unknown or unreadable version", () => {
    expect(isNewerVersion(null, "1.0")).toBe(false);
    expect(isNewerVersion("2.0", null)).toBe(false);
    expect(isNewerVersion("next", "1.0")).toBe(false);
  });
});
