/** Two decimals, half away from zero; the small nudge keeps 1.005 from printing as 1.00. */
export function round2(value: number): number {
  return Math.round((value + Math.sign(value) * Number.EPSILON * Math.abs(value)) * 100) / 100;
}

/** `part / whole` as a percentage with two decimals; 0 when the whole is 0. */
export const percentOf = (part: number, whole: number): number => (whole === 0 ? 0 : round2((part * 100) / whole));
