import { isDeepStrictEqual } from "node:util";

/**
 * `{field: {before, after}}` for the fields of `patch` whose value differs from `current` (deep,
 * for JSON values); fields the patch leaves undefined are not changes. Update facts record only
 * these, and an empty result means the command changes nothing.
 */
export function changesOf<F extends string>(current: Record<F, unknown>, patch: Partial<Record<F, unknown>>) {
  const changes: Partial<Record<F, { before: unknown; after: unknown }>> = {};
  for (const [field, after] of Object.entries(patch) as [F, unknown][]) {
    if (after !== undefined && !isDeepStrictEqual(current[field], after)) changes[field] = { before: current[field], after };
  }
  return changes;
}
