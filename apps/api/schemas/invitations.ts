import { z } from "zod";
import { ROLES } from "../../../domain/shared/roles.ts";
import { timestamp } from "./common.ts";

/** An invitation (SPEC, Invitation resource). The inviter's name and email are null once their account is gone. */
export const invitationBody = z.object({
  id: z.string().uuid(),
  team_id: z.string().uuid(),
  email: z.string(),
  role: z.enum(ROLES),
  invited_by: z.object({ user_id: z.string().uuid(), name: z.string().nullable(), email: z.string().nullable() }),
  expires_at: timestamp.describe("7 days after creation or the last re-send"),
  accepted_at: timestamp.nullable(),
  created_at: timestamp,
});

/** What anyone holding the token sees of an invitation. */
export const publicInvitationBody = z.object({
  team_name: z.string(),
  team_slug: z.string(),
  role: z.enum(ROLES),
  email: z.string(),
  invited_by_name: z.string().nullable(),
  expires_at: timestamp,
});

/** The team joined by accepting. */
export const acceptedInvitationBody = z.object({ team_id: z.string().uuid(), team_name: z.string(), role: z.enum(ROLES) });

export const exampleInvitation = {
  id: "4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d",
  team_id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  email: "ada@example.com",
  role: "member",
  invited_by: { user_id: "8c7b6a59-4837-4261-9f0e-dcba98765432", name: "grace", email: "grace@example.com" },
  expires_at: "2026-03-08T12:00:00.000Z",
  accepted_at: null,
  created_at: "2026-03-01T12:00:00.000Z",
} satisfies z.input<typeof invitationBody>;
