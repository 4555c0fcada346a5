/** Rows by `size`, largest first, ties by value (missing values last), at most `limit`. Sorts `rows` in place. */
export function largestFirst<T extends { value: string | null }>(rows: T[], size: (row: T) => number, limit: number): T[] {
  return rows.sort((a, b) => size(b) - size(a) || compareValues(a.value, b.value)).slice(0, limit);
}

const compareValues = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
