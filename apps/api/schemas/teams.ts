import { z } from "zod";
import { ROLES } from "../../../domain/shared/roles.ts";
import { invitationBody } from "./invitations.ts";
import { timestamp } from "./common.ts";

const role = z.enum(ROLES).describe("owner (3) > admin (2) > member (1)");

/** A team (SPEC, Team resource). */
export const teamBody = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string().describe("^[a-z0-9-]+$, unique among active teams"),
  created_at: timestamp,
  updated_at: timestamp,
});

/** A team of the caller with the caller's role in it, as the account routes list them. */
export const teamWithRoleBody = z.object({ id: z.string().uuid(), name: z.string(), slug: z.string(), role });

/** A member row (SPEC, Team resource). */
export const memberBody = z.object({ user_id: z.string().uuid(), email: z.string(), name: z.string(), role, joined_at: timestamp });

/** GET /v1/teams/:teamId: the team with its members and its pending invitations. */
export const teamDetailBody = teamBody.extend({ members: z.array(memberBody), pending_invitations: z.array(invitationBody) });

/** An agent key of a member as the member's key list shows it. */
export const memberAgentKeyBody = z.object({
  id: z.string().uuid(),
  name: z.string(),
  secret: z.string().describe("Masked unless the caller may use the key (admins, or the member who created it)"),
  permissions: z.array(z.string()),
  created_at: timestamp,
});

export const exampleTeam = {
  id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  name: "Acme",
  slug: "acme",
  created_at: "2026-03-01T12:00:00.000Z",
  updated_at: "2026-03-01T12:00:00.000Z",
} satisfies z.input<typeof teamBody>;
