import { z } from "zod";
import { KEY_TYPES } from "../../../domain/shared/permissions.ts";
import { timestamp } from "./common.ts";
import { teamWithRoleBody } from "./teams.ts";

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
export const agentLoginRefusal = z.object({ error: z.string(), teams: z.array(teamWithRoleBody).optional() }).passthrough();

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

export const exampleUser = {
  id: "8c7b6a59-4837-4261-9f0e-dcba98765432",
  email: "ada@example.com",
  name: "ada",
  created_at: "2026-03-01T12:00:00.000Z",
  updated_at: "2026-03-01T12:00:00.000Z",
} satisfies z.input<typeof userBody>;

export const exampleSession = {
  token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI4YzdiNmE1OSJ9.c2lnbmF0dXJl",
  user: exampleUser,
  teams: [{ id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", name: "ada's team", slug: "ada-3f9a1c", role: "owner" }],
  is_new_user: true,
} satisfies z.input<typeof sessionBody>;
