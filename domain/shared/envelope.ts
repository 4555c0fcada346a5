import { z } from "zod";

export const actorSchema = z.object({
  type: z.enum(["user", "api_key", "system"]),
  id: z.string().nullable(),
});
export type Actor = z.infer<typeof actorSchema>;

/**
 * One command becomes one message: its events travel together in `events`, so a multi-event
 * decision is atomic on every server version. `id` is the command id and the `Nats-Msg-Id`.
 */
export type Envelope<E> = {
  id: string;
  at: string;
  actor: Actor;
  events: E[];
};

export function envelopeSchema<E extends z.ZodTypeAny>(event: E) {
  return z.object({
    id: z.string(),
    at: z.string(),
    actor: actorSchema,
    events: z.array(event),
  });
}

export const SYSTEM_ACTOR: Actor = { type: "system", id: null };
