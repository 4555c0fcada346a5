import { z } from "zod";
import { uuid } from "../validation.ts";

/** `{"error": "..."}`: every refusal; some carry more fields (`existing_run_id`, `teams`, …). */
export const errorBody = z.object({ error: z.string() }).passthrough();

/** `{"deleted": true}`, the answer of every DELETE that removes a resource. */
export const deletedBody = z.object({ deleted: z.literal(true) });

/** Time stamps as the read models return them: ISO 8601 text. */
export const timestamp = z.string().describe("ISO 8601 date-time");

/** `/:id` of a resource addressed by UUID. */
export const idParams = z.object({ id: uuid });

/** `/:projectId` of the routes under a project. */
export const projectParams = z.object({ projectId: uuid });

/**
 * A PATCH body must name at least one field; the check is the body's own refinement, so its 400
 * comes from the schema like every other input error.
 */
export const changingSomething = <S extends z.ZodObject<z.ZodRawShape>>(body: S) =>
  body.refine((value) => Object.values(value).some((field) => field !== undefined), { message: "name at least one field to change" });

/**
 * The groups of the OpenAPI document, one per resource family, in the order a reader meets them.
 * Route files name theirs from here so the reference page has one list.
 */
export const TAGS = {
  auth: "auth",
  teams: "teams",
  invitations: "invitations",
  auditLogs: "audit logs",
  projects: "projects",
  apps: "apps",
  keys: "api keys",
  ingest: "ingest",
  events: "events",
  users: "users",
  identity: "identity",
  metrics: "metrics",
  funnels: "funnels",
  jobs: "jobs",
  attachments: "attachments",
  notifications: "notifications",
  devices: "devices",
  feedback: "feedback",
  issues: "issues",
  integrations: "integrations",
  operations: "operations",
} as const;
