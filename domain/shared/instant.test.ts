import { describe, expect, it } from "vitest";
import { parseDateOrDateTime, parseDateTime } from "./instant.ts";

describe("parseDateTime", () => {
  it("reads a date-time without a zone as UTC, never the server's local time", () => {
    expect(parseDateTime("2024-02-01T00:00:00")).toBe(Date.UTC(2024, 1, 1));
    expect(parseDateTime("2024-02-01 10:30")).toBe(Date.UTC(2024, 1, 1, 10, 30));
    expect(parseDateTime("2024-02-01T10:30:00+02:00")).toBe(Date.UTC(2024, 1, 1, 8, 30));
    expect(parseDateTime("2024-02-01T10:30:00.123Z")).toBe(Date.UTC(2024, 1, 1, 10, 30, 0, 123));
    expect(parseDateTime("2024-02-01T10:30:00.1234567890123Z")).toBe(Date.UTC(2024, 1, 1, 10, 30, 0, 123));
  });

  it("refuses times that do not exist instead of rolling them over", () => {
    for (const value of ["2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T10:60:00Z", "yesterday", "2024-01-01"]) {
      expect(parseDateTime(value), value).toBeNaN();
    }
    expect(parseDateTime("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
  });
});

describe("parseDateOrDateTime", () => {
  it("takes a date alone as its UTC midnight", () => {
    expect(parseDateOrDateTime("2024-02-01")).toBe(Date.UTC(2024, 1, 1));
    expect(parseDateOrDateTime("2024-02-30")).toBeNaN();
    expect(parseDateOrDateTime("2024-02-01T12:00:00")).toBe(Date.UTC(2024, 1, 1, 12));
  });
});
