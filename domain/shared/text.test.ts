import { describe, expect, it } from "vitest";
import { isStorableText } from "./text.ts";

describe("isStorableText", () => {
  it("accepts ordinary text, emoji and other surrogate pairs", () => {
    for (const text of ["", "user-1", "Zoë", "💥💥", "中文"]) expect(isStorableText(text)).toBe(true);
  });

  it("refuses NUL and unpaired surrogates", () => {
    for (const text of ["a\u0000b", "\ud800", "x\udc00", "💥".slice(0, 1), "\udc00\ud800"]) expect(isStorableText(text)).toBe(false);
  });
});
