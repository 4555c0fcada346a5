import { z } from "zod";
import { invalid } from "../../domain/shared/errors.ts";
import { SLUG_PATTERN } from "../../domain/shared/ids.ts";
import { longerThan } from "../../domain/shared/text.ts";

/**
 * Parses request input with a zod schema (the route schemas' validator, plugins/route-schemas.ts).
 * @throws DomainError invalid naming the first bad field, or `what` when the whole value is wrong
 */
export function parse<S extends z.ZodTypeAny>(schema: S, value: unknown, what = "body"): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join(".") : what;
  throw invalid(`${field}: ${issue.message}`);
}

/**
 * Text of 1 to `max` characters counted as code points, as ingest counts them: a value an event
 * may carry (a user id, a screen name) can always be named in a filter or an identity call.
 */
export const chars = (max: number) => z.string().min(1).refine((value) => !longerThan(value, max), `must be at most ${max} characters`);

/** A UUID in any letter case, lower-cased: ids are compared as strings after parsing, and Postgres writes them lower-case. */
export const uuid = z.string().uuid().transform((value) => value.toLowerCase());
export const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .email();

/** A metric or funnel slug: as long as a metric message allows (domain/metrics/derive.ts). */
export const definitionSlug = z.string().min(1).max(100).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$");
