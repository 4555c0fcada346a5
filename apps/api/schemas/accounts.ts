import { z } from "zod";
import { KEY_TYPES } from "../../../domain/shared/permissions.ts";
import { email, uuid } from "../validation.ts";
import { errorBody, timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";
import { exampleTeam, teamWithRoleBody } from "./teams.ts";

const code = z.string().regex(/^\d{6}$/, "must be 6 digits");

/** POST /v1/auth/send-code, and its answer whether or not the address exists. */
export const sendCodeBody = z.object({ email });
export const codeSentBody = z.object({ message: z.string() });

/** POST /v1/auth/verify-code. */
export const verifyCodeBody = z.object({ email, code });

/** POST /v1/auth/agent-login: `team_id` picks a team of a user of several. */
export const agentLoginRequest = z.object({ email, code, team_id: uuid.optional() });

/** POST /v1/auth/default-agent-key. */
export const defaultAgentKeyRequest = z.object({ team_id: uuid });

/** POST /v1/auth/logout. */
export const loggedOutBody = z.object({ success: z.literal(true) });

/** PATCH /v1/auth/me. */
export const renameMeBody = z.object({ name: z.string().trim().min(1).max(100) });

/** A user account (SPEC, User resource). */
export const userBody = z.object({
  id: z.string().uuid(),
  email: z.string(),
  name: z.string().describe("The part of the email before @ until changed"),
  created_at: timestamp,
  updated_at: timestamp,
});

/** A team as the sign-in answer lists it: with the team's default agent key when it has one. */
const signedInTeamBody = teamWithRoleBody.extend({
  default_agent_key: z.string().optional().describe("The secret of the team's oldest active agent key; absent when the team has none"),
});

/** POST /v1/auth/verify-code: the session token (also set as the `token` cookie), the account and its teams. */
export const sessionBody = z.object({
  token: z.string(),
  user: userBody,
  teams: z.array(signedInTeamBody),
  is_new_user: z.boolean().describe("True when this sign-in created the account and its default team"),
});

/** POST /v1/auth/agent-login: a new agent key and the team it belongs to. */
export const agentLoginBody = z.object({
  api_key: z.string(),
  team: z.object({ id: z.string().uuid(), name: z.string(), slug: z.string() }),
});

/** An error; agent-login's 400 for a user of several teams also lists them. */
export const agentLoginRefusal = errorBody.extend({ teams: z.array(teamWithRoleBody).optional() });

/** POST /v1/auth/default-agent-key. */
export const defaultAgentKeyBody = z.object({ secret: z.string(), created: z.boolean().describe("False when the team already had an agent key") });

/** GET /v1/auth/whoami: a user session or an API key. */
export const whoamiBody = z.discriminatedUnion("type", [
  z.object({ type: z.literal("user"), email: z.string(), teams: z.array(teamWithRoleBody) }),
  z.object({
    type: z.literal("api_key"),
    key_type: z.enum(KEY_TYPES),
    team: z.object({ id: z.string().uuid(), name: z.string(), slug: z.string() }).nullable(),
    permissions: z.array(z.string()),
  }),
]);

export const teamsBody = z.object({ teams: z.array(teamWithRoleBody) });

/** GET /v1/auth/me, and PATCH's answer without the teams. */
export const meBody = z.object({ user: userBody, teams: z.array(teamWithRoleBody) });
export const userOnlyBody = z.object({ user: userBody });

export const exampleUser = {
  id: EXAMPLE.userId,
  email: "ada@example.com",
  name: "ada",
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} satisfies z.input<typeof userBody>;

export const exampleSession = {
  token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI4YzdiNmE1OSJ9.c2lnbmF0dXJl",
  user: exampleUser,
  teams: [{ id: EXAMPLE.teamId, name: "ada's team", slug: "ada-3f9a1c", role: "owner" }],
  is_new_user: true,
} satisfies z.input<typeof sessionBody>;

export const exampleAgentLogin = {
  api_key: "svc_agent_3q2x7Qa9mKp4Lr8sWv1Yz0bC",
  team: { id: exampleTeam.id, name: exampleTeam.name, slug: exampleTeam.slug },
} satisfies z.input<typeof agentLoginBody>;
