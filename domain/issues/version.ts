/**
 * App version comparison for regressions. Accepts `v1.2.3`, `1.2`, `1.2.3 (456)` and `1.2.3+456`
 * (a build), `1.2.3-beta.2` (a pre-release, older than `1.2.3`) and date versions (`2024.05.01`,
 * `2024-05-01`, `20240501`). A version that reads as none of these is not comparable.
 */
type Parsed = { release: number[]; pre: string[]; build: number | null };

const SHAPE = /^v?(\d+(?:\.\d+)*)(?:-([0-9a-z.-]+))?(?:\+(\d+)|\s*\((\d+)\))?$/i;
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})(.*)$/;

export function parseVersion(raw: string): Parsed | null {
  let text = raw.trim();
  // A date written with dashes is a release, not a version with a pre-release "05-01".
  const date = DATE.exec(text);
  if (date) text = `${date[1]}.${date[2]}.${date[3]}${date[4]}`;
  const match = SHAPE.exec(text);
  if (!match) return null;
  const build = match[3] ?? match[4];
  return {
    release: match[1]!.split(".").map(Number),
    pre: match[2] ? match[2].split(".") : [],
    build: build === undefined ? null : Number(build),
  };
}

function compareIdentifiers(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Math.sign(Number(a) - Number(b));
  if (numeric.test(a)) return -1;
  if (numeric.test(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * -1, 0 or 1 as `a` is older, the same or newer than `b`; null when either is not a version.
 * Missing release parts count as 0 (`1.2` = `1.2.0`). A build decides only between two versions
 * that both carry one: `1.2.3 (457)` is newer than `1.2.3 (456)` but the same as `1.2.3`.
 */
export function compareVersions(a: string, b: string): -1 | 0 | 1 | null {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (!left || !right) return null;
  const length = Math.max(left.release.length, right.release.length);
  for (let i = 0; i < length; i += 1) {
    const diff = Math.sign((left.release[i] ?? 0) - (right.release[i] ?? 0));
    if (diff !== 0) return diff as -1 | 1;
  }
  if (left.pre.length === 0 && right.pre.length > 0) return 1;
  if (left.pre.length > 0 && right.pre.length === 0) return -1;
  for (let i = 0; i < Math.max(left.pre.length, right.pre.length); i += 1) {
    if (left.pre[i] === undefined) return -1;
    if (right.pre[i] === undefined) return 1;
    const diff = compareIdentifiers(left.pre[i]!, right.pre[i]!);
    if (diff !== 0) return diff as -1 | 1;
  }
  if (left.build !== null && right.build !== null) return Math.sign(left.build - right.build) as -1 | 0 | 1;
  return 0;
}

/** Whether `candidate` is strictly newer than `base`. Unknown or unreadable versions never are. */
export function isNewerVersion(candidate: string | null, base: string | null): boolean {
  if (candidate === null || base === null) return false;
  return compareVersions(candidate, base) === 1;
}
