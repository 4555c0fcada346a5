import { describe, expect, it } from "vitest";
import { z } from "zod";
import { limitParam } from "./listing.ts";
import { parse } from "./validation.ts";

describe("limitParam", () => {
  const query = z.object({ limit: limitParam(200, 50) });
  const limit = (value?: string) => parse(query, value === undefined ? {} : { limit: value }, "query").limit;

  it("serves a limit above the maximum as the maximum, and takes any one from 1 up to it", () => {
    expect(limit("1000")).toBe(200);
    expect(limit("201")).toBe(200);
    expect(limit("200")).toBe(200);
    expect(limit("1")).toBe(1);
    expect(limit()).toBe(50);
  });

  it("refuses a limit below 1, not an integer or not a number, naming the field", () => {
    expect(() => limit("0")).toThrow("limit: Number must be greater than or equal to 1");
    expect(() => limit("-5")).toThrow("limit: Number must be greater than or equal to 1");
    expect(() => limit("2.5")).toThrow("limit: Expected integer, received float");
    expect(() => limit("abc")).toThrow("limit: Expected number, received nan");
  });
});
