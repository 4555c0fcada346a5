import { z } from "zod";

export const ANONYMOUS_PREFIX = "svc_anon_";

export const isAnonymousId = (userId: string): boolean => userId.startsWith(ANONYMOUS_PREFIX);

const base = {
  v: z.literal(1),
  /** The fact id, also its `Nats-Msg-Id`. */
  id: z.string().uuid(),
  team_id: z.string().uuid(),
  project_id: z.string().uuid(),
  /** The app whose client key made the call; a user created by this fact is linked to it. */
  app_id: z.string().uuid(),
  at: z.string().datetime({ precision: 3 }),
};

/**
 * An anonymous id was claimed by a known user id. Published on the anonymous id's identity
 * subject, so two claims of one anonymous id are serialized and the log holds only valid claims:
 * every read model applies it without deciding anything. `app_ids` are every app of the project
 * when the claim was decided (deleted ones included), so a read model can reassign rows through
 * its per-app indexes without reading another read model.
 */
export const userClaimed = z.object({
  type: z.literal("UserClaimed"),
  ...base,
  app_ids: z.array(z.string().uuid()),
  anonymous_id: z.string().min(1),
  user_id: z.string().min(1),
});
export type UserClaimed = z.infer<typeof userClaimed>;

/**
 * Properties of one user changed: `set` keys take their value, `unset` keys are removed. Published
 * on the user's identity subject with optimistic concurrency. `merged_at_seq` is the user's merge
 * mark the decision saw: a claim merging another record into this user moves the mark without
 * touching this user's subject, and a fact decided before that merge is then not applied (the
 * API sees it superseded and decides again).
 */
export const userPropertiesChanged = z.object({
  type: z.literal("UserPropertiesChanged"),
  ...base,
  user_id: z.string().min(1),
  set: z.record(z.string()),
  unset: z.array(z.string()),
  source: z.enum(["api", "attribution", "subprov"]),
  merged_at_seq: z.number().int().nonnegative(),
});
export type UserPropertiesChanged = z.infer<typeof userPropertiesChanged>;

/**
 * A user's lifetime revenue in USD cents as the subscription provider reports it, and the time
 * that figure holds for (`synced_at`: the sync's time, or the webhook event's). Published on the
 * user's identity subject like a property change; read by the ads queries only (SPEC App user).
 */
export const userRevenueSynced = z.object({
  type: z.literal("UserRevenueSynced"),
  ...base,
  user_id: z.string().min(1),
  lifetime_revenue_usd_cents: z.number().int().nonnegative(),
  synced_at: z.string().datetime({ precision: 3 }),
});
export type UserRevenueSynced = z.infer<typeof userRevenueSynced>;

export const identityFact = z.discriminatedUnion("type", [userClaimed, userPropertiesChanged, userRevenueSynced]);
export type IdentityFact = z.infer<typeof identityFact>;
