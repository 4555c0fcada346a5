import { describe, expect, it } from "vitest";
import { isStorableText, longerThan, truncate } from "./text.ts";

describe("isStorableText", () => {
  it("accepts ordinary text, emoji and other surrogate pairs", () => {
    for (const text of ["", "user-1", "Zoë", "💥💥", "中文"]) expect(isStorableText(text)).toBe(true);
  });

  it("refuses NUL and unpaired surrogates", () => {
    for (const text of ["a\u0000b", "\ud800", "x\udc00", "💥".slice(0, 1), "\udc00\ud800"]) expect(isStorableText(text)).toBe(false);
  });
});

describe("longerThan", () => {
  it("counts code points: an emoji is one character", () => {
    expect(longerThan("💥".repeat(150), 200)).toBe(false);
    expect(longerThan("💥".repeat(200), 200)).toBe(false);
    expect(longerThan("💥".repeat(201), 200)).toBe(true);
    expect(longerThan("a".repeat(200), 200)).toBe(false);
    expect(longerThan("a".repeat(201), 200)).toBe(true);
    expect(longerThan(`${"a".repeat(199)}💥`, 200)).toBe(false);
    expect(longerThan(`${"a".repeat(200)}💥`, 200)).toBe(true);
  });
});

describe("truncate", () => {
  it("counts characters, not UTF-16 units, and never splits a pair", () => {
    expect(truncate("abc", 2)).toBe("ab");
    expect(truncate("😀😀😀", 2)).toBe("😀😀");
    expect(truncate("a😀b", 2)).toBe("a😀");
    expect(truncate("short", 200)).toBe("short");
  });
});
