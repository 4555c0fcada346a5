import { z } from "zod";

export const userRegistered = z.object({
  type: z.literal("UserRegistered"),
  v: z.literal(1),
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
});

export const userRenamed = z.object({
  type: z.literal("UserRenamed"),
  v: z.literal(1),
  user_id: z.string(),
  name: z.string(),
  previous_name: z.string(),
  /** The teams the user belonged to at the time, so each team's audit log records the change. */
  team_ids: z.array(z.string()),
});

export const userEvents = [userRegistered, userRenamed] as const;
export type UserRegistered = z.infer<typeof userRegistered>;
export type UserRenamed = z.infer<typeof userRenamed>;
