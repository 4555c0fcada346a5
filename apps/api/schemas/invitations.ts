import { z } from "zod";
import { ROLES } from "../../../domain/shared/roles.ts";
import { email, uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

const token = z.string().min(1).max(200);

/** `/v1/teams/:teamId/invitations`, and one of them. */
export const teamInvitationsParams = z.object({ teamId: uuid });
export const teamInvitationParams = teamInvitationsParams.extend({ invitationId: uuid });

/** POST /v1/teams/:teamId/invitations. */
export const inviteBody = z.object({ email, role: z.enum(ROLES).default("member") });

/** GET /v1/invites/:token and POST /v1/invites/accept. */
export const tokenParams = z.object({ token });
export const acceptBody = z.object({ token });

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
export const invitationsBody = z.object({ invitations: z.array(invitationBody) });

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

/** Ada (the example user) invites Grace to Acme. */
export const exampleInvitation = {
  id: "4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d",
  team_id: EXAMPLE.teamId,
  email: "grace@example.com",
  role: "member",
  invited_by: { user_id: EXAMPLE.userId, name: "ada", email: "ada@example.com" },
  expires_at: "2026-12-02T12:00:00.000Z",
  accepted_at: null,
  created_at: EXAMPLE.at,
} satisfies z.input<typeof invitationBody>;
