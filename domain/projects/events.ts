import { z } from "zod";
import { UPDATABLE_FIELDS } from "./settings.ts";

const change = z.object({ before: z.unknown(), after: z.unknown() });

export const projectCreated = z.object({
  type: z.literal("ProjectCreated"),
  v: z.literal(1),
  project_id: z.string(),
  team_id: z.string(),
  name: z.string(),
  slug: z.string(),
  color: z.string(),
  retention_days_events: z.number().int().nullable(),
  retention_days_metrics: z.number().int().nullable(),
  retention_days_funnels: z.number().int().nullable(),
  /** Soft-deleted projects of the team with the same slug: this creation hard-deletes them. */
  replaces_project_ids: z.array(z.string()),
});

export const projectUpdated = z.object({
  type: z.literal("ProjectUpdated"),
  v: z.literal(1),
  project_id: z.string(),
  team_id: z.string(),
  changes: z.record(z.enum(UPDATABLE_FIELDS), change),
});

/** Cascades in the read models to the project's apps, their keys and its definitions. */
export const projectDeleted = z.object({
  type: z.literal("ProjectDeleted"),
  v: z.literal(1),
  project_id: z.string(),
  team_id: z.string(),
  slug: z.string(),
});

export const projectEvents = [projectCreated, projectUpdated, projectDeleted] as const;
export type ProjectCreated = z.infer<typeof projectCreated>;
export type ProjectUpdated = z.infer<typeof projectUpdated>;
