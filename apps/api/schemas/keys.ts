import { z } from "zod";
import { KEY_TYPES } from "../../../domain/shared/permissions.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

/**
 * An API key (SPEC, API key resource). `secret` is the full secret or, for a member reading a key
 * they may not use, its masked form (domain/keys/secret-visibility.ts). `created_by` is null for
 * keys made by an agent key no user stands behind.
 */
export const apiKeyBody = z.object({
  id: z.string().uuid(),
  secret: z.string(),
  key_type: z.enum(KEY_TYPES),
  app_id: z.string().uuid().nullable().describe("set for client and import keys"),
  team_id: z.string().uuid(),
  name: z.string(),
  created_by: z.string().uuid().nullable(),
  permissions: z.array(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
  last_used_at: timestamp.nullable(),
  expires_at: timestamp.nullable().describe("null means never expires"),
});

/** A key as lists show it: with its creator's email and its app's name. */
export const listedApiKeyBody = apiKeyBody.extend({ created_by_email: z.string().nullable(), app_name: z.string().nullable() });

/** `{api_key}`, the answer of every route that returns one key. */
export const apiKeyAnswer = z.object({ api_key: apiKeyBody });

/** An agent key of the example team as its creation answers it, with the full secret. */
export const exampleAgentKey = {
  id: EXAMPLE.keyId,
  secret: "svc_agent_QWdlbnRTZWNyZXRFeGFtcGxlMTIzNDU2",
  key_type: "agent",
  app_id: null,
  team_id: EXAMPLE.teamId,
  name: "CI",
  created_by: EXAMPLE.userId,
  permissions: ["events:read", "projects:read"],
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
  last_used_at: null,
  expires_at: "2026-12-25T12:00:00.000Z",
} satisfies z.input<typeof apiKeyBody>;
