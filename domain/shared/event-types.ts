import type { z } from "zod";

type EventSchema = z.ZodObject<{ type: z.ZodLiteral<string> } & z.ZodRawShape>;

/**
 * The `type` strings of a group of event schemas, and a guard for them: how a reader tells its
 * own facts from the rest of a stream without listing (and editing, for every new feature) the
 * types of all the others.
 */
export function eventTypeGuard<Schemas extends readonly EventSchema[]>(schemas: Schemas) {
  const types = new Set<string>(schemas.map((schema) => schema.shape.type.value));
  return (fact: { type: string }): fact is z.infer<Schemas[number]> & { type: string } => types.has(fact.type);
}
