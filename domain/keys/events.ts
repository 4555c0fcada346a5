import { z } from "zod";
import { KEY_TYPES } from "../shared/permissions.ts";

export const apiKeyCreated = z.object({
  type: z.literal("ApiKeyCreated"),
  v: z.literal(1),
  key_id: z.string(),
  team_id: z.string(),
  app_id: z.string().nullable(),
  key_type: z.enum(KEY_TYPES),
  name: z.string(),
  secret: z.string(),
  permissions: z.array(z.string()),
  created_by: z.string().nullable(),
  expires_at: z.string().nullable(),
});

export const apiKeyUpdated = z.object({
  type: z.literal("ApiKeyUpdated"),
  v: z.literal(1),
  key_id: z.string(),
  team_id: z.string(),
  changes: z.record(z.object({ before: z.unknown(), after: z.unknown() })),
  name: z.string(),
  permissions: z.array(z.string()),
});

export const apiKeyDeleted = z.object({
  type: z.literal("ApiKeyDeleted"),
  v: z.literal(1),
  key_id: z.string(),
  team_id: z.string(),
});

export const keyEvents = [apiKeyCreated, apiKeyUpdated, apiKeyDeleted] as const;
export type ApiKeyCreated = z.infer<typeof apiKeyCreated>;
