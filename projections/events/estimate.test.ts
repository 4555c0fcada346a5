import { describe, expect, it } from "vitest";
import { distinctEstimate } from "./estimate.ts";

const M = 16_384;

/** A serialized FULL sketch (log2m 14, 5-bit registers) with `filled` registers set to 1 (spread over the array). */
function fullSketch(filled: number[]): Uint8Array {
  const bytes = new Uint8Array(3 + (M * 5) / 8);
  bytes.set([0x14, 0x8e, 0x00]);
  for (const register of filled) {
    // Value 1: the register's last bit.
    const bit = register * 5 + 4;
    bytes[3 + (bit >> 3)]! |= 1 << (7 - (bit & 7));
  }
  return bytes;
}

describe("distinctEstimate", () => {
  it("counts a full sketch's empty registers, across byte boundaries, for linear counting", () => {
    // Register 1 spans the first two bytes of the data.
    expect(distinctEstimate(fullSketch([1]), 99)).toBeCloseTo(M * Math.log(M / (M - 1)), 6);
    const half = Array.from({ length: M / 2 }, (_, i) => i * 2 + 1);
    expect(distinctEstimate(fullSketch(half), 99)).toBeCloseTo(M * Math.log(2), 6);
  });

  it("keeps hll_cardinality for non-full sketches, when no register is empty, and past the linear counting range", () => {
    expect(distinctEstimate(null, 0)).toBe(0);
    expect(distinctEstimate(Uint8Array.from([0x12, 0x8e, 0x3f, 1, 2, 3, 4, 5, 6, 7, 8]), 1)).toBe(1);
    expect(distinctEstimate(fullSketch(Array.from({ length: M }, (_, i) => i)), 200_000)).toBe(200_000);
    // 98 % of the registers filled: linear counting would say ~64,000, past 3.2 per register.
    const most = Array.from({ length: Math.floor(M * 0.98) }, (_, i) => i);
    expect(distinctEstimate(fullSketch(most), 70_000)).toBe(70_000);
  });
});
