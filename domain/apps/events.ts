import { z } from "zod";

export const PLATFORMS = ["apple", "android", "web", "backend"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Travels with the `ApiKeyCreated` of the app's client key in one envelope. */
export const appCreated = z.object({
  type: z.literal("AppCreated"),
  v: z.literal(1),
  app_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  platform: z.enum(PLATFORMS),
  bundle_id: z.string().nullable(),
  client_key_id: z.string(),
});

export const appRenamed = z.object({
  type: z.literal("AppRenamed"),
  v: z.literal(1),
  app_id: z.string(),
  team_id: z.string(),
  name: z.string(),
  previous_name: z.string(),
});

/** Soft-deletes the app's keys with it. */
export const appDeleted = z.object({
  type: z.literal("AppDeleted"),
  v: z.literal(1),
  app_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
});

export const appEvents = [appCreated, appRenamed, appDeleted] as const;
