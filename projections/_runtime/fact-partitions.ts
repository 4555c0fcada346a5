/** Most partitions an INGEST read model can be split into (`INGEST_PARTITIONS`). */
export const MAX_PARTITIONS = 64;

/**
 * Which of `count` partitions an INGEST fact belongs to, from its subject alone (nothing is decoded):
 * by project, the subject's third token (`<ns>.i.<project>.<app>` and `<ns>.i.<project>.u.<user>`).
 * Every fact of a project, its apps' batches and its users' identity facts, is then applied by one
 * partition in stream order, and a project's rollup and summary rows have a single writer. FNV-1a
 * over the token: the same answer in every process and version, spread evenly over random ids.
 */
export function partitionOfSubject(subject: string, count: number): number {
  if (count <= 1) return 0;
  const start = nthDot(subject, 2) + 1;
  const end = subject.indexOf(".", start);
  let hash = 0x811c9dc5;
  for (let index = start; index < (end < 0 ? subject.length : end); index += 1) {
    hash ^= subject.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

function nthDot(text: string, n: number): number {
  let at = -1;
  for (let seen = 0; seen < n; seen += 1) at = text.indexOf(".", at + 1);
  return at;
}

/** The advisory lock one partition of a read model is applied under: one active instance per partition. */
export const partitionLockName = (projection: string, partition: number): string =>
  partition === 0 ? `projector:${projection}` : `projector:${projection}:${partition}`;
