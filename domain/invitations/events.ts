import { z } from "zod";
import { ROLES } from "../shared/roles.ts";

/**
 * Invitation facts travel on the team's subject. They carry the raw token because the worker
 * mails it from the fact; read models keep only its hash.
 */
const invitationSent = {
  v: z.literal(1),
  invitation_id: z.string(),
  team_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  token: z.string(),
  token_hash: z.string(),
  invited_by: z.string(),
  expires_at: z.string(),
};

export const invitationCreated = z.object({ type: z.literal("InvitationCreated"), ...invitationSent });

/** Same fields as a creation: a new token and a fresh expiry for the same invitation id. */
export const invitationResent = z.object({ type: z.literal("InvitationResent"), ...invitationSent });

export const invitationRevoked = z.object({
  type: z.literal("InvitationRevoked"),
  v: z.literal(1),
  invitation_id: z.string(),
  team_id: z.string(),
  email: z.string(),
});

export const invitationAccepted = z.object({
  type: z.literal("InvitationAccepted"),
  v: z.literal(1),
  invitation_id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
});

export const invitationEvents = [invitationCreated, invitationResent, invitationRevoked, invitationAccepted] as const;
