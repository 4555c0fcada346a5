import { z } from "zod";
import { ROLES } from "../shared/roles.ts";

const role = z.enum(ROLES);

export const teamCreated = z.object({
  type: z.literal("TeamCreated"),
  v: z.literal(1),
  team_id: z.string(),
  name: z.string(),
  slug: z.string(),
  created_by: z.string(),
  /** True for the default team made at sign-up: its audit log also records the user's creation. */
  for_new_user: z.boolean(),
});

export const teamRenamed = z.object({
  type: z.literal("TeamRenamed"),
  v: z.literal(1),
  team_id: z.string(),
  name: z.string(),
  previous_name: z.string(),
});

export const teamDeleted = z.object({
  type: z.literal("TeamDeleted"),
  v: z.literal(1),
  team_id: z.string(),
});

export const memberAdded = z.object({
  type: z.literal("MemberAdded"),
  v: z.literal(1),
  team_id: z.string(),
  user_id: z.string(),
  role,
});

export const memberRoleChanged = z.object({
  type: z.literal("MemberRoleChanged"),
  v: z.literal(1),
  team_id: z.string(),
  user_id: z.string(),
  role,
  previous_role: role,
});

export const memberRemoved = z.object({
  type: z.literal("MemberRemoved"),
  v: z.literal(1),
  team_id: z.string(),
  user_id: z.string(),
  role,
  revoked_agent_key_ids: z.array(z.string()),
});

export const teamEvents = [teamCreated, teamRenamed, teamDeleted, memberAdded, memberRoleChanged, memberRemoved] as const;
export type TeamCreated = z.infer<typeof teamCreated>;
export type MemberAdded = z.infer<typeof memberAdded>;
export type MemberRoleChanged = z.infer<typeof memberRoleChanged>;
export type MemberRemoved = z.infer<typeof memberRemoved>;
