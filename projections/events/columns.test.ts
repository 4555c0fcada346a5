import { describe, expect, it } from "vitest";
import { textArray } from "./columns.ts";

describe("textArray", () => {
  it("quotes every value, so none can change the literal's shape, and writes null as NULL", () => {
    expect(textArray(["a", null, "NULL", "", "x,y", "{z}", " padded "])).toBe('{"a",NULL,"NULL","","x,y","{z}"," padded "}');
  });

  it("escapes only quotes and backslashes and keeps every other character as it is", () => {
    expect(textArray(['say "hi"', "C:\\temp", "line\nbreak\ttab", "ünïcødé 🚀"])).toBe('{"say \\"hi\\"","C:\\\\temp","line\nbreak\ttab","ünïcødé 🚀"}');
  });

  it("writes an empty array for no values", () => {
    expect(textArray([])).toBe("{}");
  });
});
