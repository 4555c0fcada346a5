/**
 * Linear counting is used up to this many distinct values per register (3.2 × 16,384 ≈ 52,000
 * for the count's sketches), hll_cardinality above it.
 *
 * postgresql-hll estimates by linear counting (from the share of empty registers) up to 2.5 values
 * per register and by the raw HyperLogLog formula above, which over-counts just past that point.
 * Measured over 12 random sets each (log2m 14): at 45,000 distinct values hll_cardinality was
 * +1.8 % off on average (up to 2.8 %), at 60,000 +0.4 %, at 100,000 and more unbiased. Linear
 * counting stays unbiased, with a standard error of about 1 % at 3 values per register.
 */
const LINEAR_COUNTING_UP_TO = 3.2;

/** The `type` nibble of a serialized FULL sketch (postgresql-hll STORAGE.markdown). */
const FULL = 4;

/**
 * The number of distinct values in a sketch serialized by `hll_send`, given `hllEstimate`, its
 * hll_cardinality: that one, unless the sketch is full (registers) and linear counting applies.
 * A FULL sketch is a 3-byte header (version and type; register width - 1 and log2m; cutoffs) and
 * then its registers, `regwidth` bits each, most significant bit first.
 */
export function distinctEstimate(sketch: Uint8Array | null, hllEstimate: number): number {
  if (sketch === null || sketch.length < 3 || (sketch[0]! & 0x0f) !== FULL) return hllEstimate;
  const regwidth = (sketch[1]! >> 5) + 1;
  const m = 1 << (sketch[1]! & 0x1f);
  let empty = 0;
  for (let register = 0; register < m; register++) {
    let value = 0;
    for (let bit = register * regwidth; bit < (register + 1) * regwidth; bit++) {
      value = (value << 1) | ((sketch[3 + (bit >> 3)]! >> (7 - (bit & 7))) & 1);
    }
    if (value === 0) empty += 1;
  }
  if (empty === 0) return hllEstimate;
  const linear = m * Math.log(m / empty);
  return linear <= LINEAR_COUNTING_UP_TO * m ? linear : hllEstimate;
}
