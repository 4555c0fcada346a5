import { z } from "zod";
import { SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import { ROLES } from "../../../domain/shared/roles.ts";
import { uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";
import { invitationBody } from "./invitations.ts";

const role = z.enum(ROLES).describe("owner (3) > admin (2) > member (1)");
const teamName = z.string().trim().min(1).max(100);

/** `/:teamId`: the team the path names. */
export const teamParams = z.object({ teamId: uuid });

/** `/:teamId/members/:userId`. */
export const memberParams = teamParams.extend({ userId: uuid });

/** POST /v1/teams. */
export const createTeamBody = z.object({ name: teamName, slug: z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$") });

/** PATCH /v1/teams/:teamId. */
export const renameTeamBody = z.object({ name: teamName });

/** PATCH /v1/teams/:teamId/members/:userId, and its answer. */
export const changeRoleBody = z.object({ role: z.enum(ROLES) });
export const roleChangedBody = z.object({ user_id: z.string().uuid(), role: z.enum(ROLES) });

/** DELETE /v1/teams/:teamId/members/:userId, and its answer. */
export const removeMemberQuery = z.object({ revoke_agent_keys: z.enum(["true", "false"]).optional() });
export const memberRemovedBody = z.object({ removed: z.literal(true), revoked_agent_keys: z.number().int() });

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
export const membersBody = z.object({ members: z.array(memberBody) });

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
export const memberAgentKeysBody = z.object({ keys: z.array(memberAgentKeyBody) });

export const exampleTeam = {
  id: EXAMPLE.teamId,
  name: "Acme",
  slug: "acme",
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} satisfies z.input<typeof teamBody>;
