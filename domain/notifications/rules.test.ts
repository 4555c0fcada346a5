import { describe, expect, it } from "vitest";
import { deviceEnvironment, notificationId, tokenKey } from "./rules.ts";
import { knownTypes } from "./types.ts";

describe("notification rules", () => {
  it("treats anything but sandbox as production", () => {
    expect(deviceEnvironment("sandbox")).toBe("sandbox");
    expect(deviceEnvironment("Sandbox")).toBe("production");
    expect(deviceEnvironment(undefined)).toBe("production");
  });

  it("derives one notification id per source, type and recipient", () => {
    expect(notificationId("m1", "job.completed", "u1")).toBe(notificationId("m1", "job.completed", "u1"));
    expect(notificationId("m1", "job.completed", "u1")).not.toBe(notificationId("m1", "job.completed", "u2"));
    expect(notificationId("m1", "job.completed", "u1")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("keys a device subject by a hash that is a safe subject token", () => {
    expect(tokenKey("a.b c>*")).toMatch(/^[0-9a-f]{32}$/);
  });

  it("drops unknown types from a filter", () => {
    expect(knownTypes("issue.digest, no.such,issue.digest")).toEqual(["issue.digest"]);
    expect(knownTypes("no.such")).toEqual([]);
    expect(knownTypes(undefined)).toEqual([]);
  });
});
