import { describe, expect, it } from "vitest";
import { newId, timeOfId, timeOrderedId } from "./ids.ts";

describe("timeOrderedId", () => {
  it("makes version 7 UUIDs whose time prefix reads back", () => {
    const ms = Date.parse("2026-11-21T12:34:56.789Z");
    const id = timeOrderedId(ms);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOfId(id)).toBe(ms);
    expect(timeOfId(id.toUpperCase())).toBe(ms);
    expect(timeOfId(timeOrderedId(0))).toBe(0);
  });

  it("sorts by time and never repeats", () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => timeOrderedId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.map((id) => timeOfId(id))).toEqual([...ids].sort().map((id) => timeOfId(id)));
  });

  it("has no time for other ids and refuses times it cannot encode", () => {
    expect(timeOfId(newId())).toBeNull();
    expect(timeOfId("not-a-uuid")).toBeNull();
    expect(() => timeOrderedId(-1)).toThrow(RangeError);
    expect(() => timeOrderedId(1.5)).toThrow(RangeError);
  });
});
