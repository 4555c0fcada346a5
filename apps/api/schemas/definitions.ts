import { z } from "zod";
import { funnelStep } from "../../../domain/definitions/events.ts";
import { timestamp } from "./common.ts";

const jsonObject = z.record(z.unknown());

/** A metric definition (SPEC, Metric definition). */
export const metricBody = z.object({
  id: z.string().uuid(),
  project_id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  documentation: z.string().nullable(),
  schema_definition: jsonObject.nullable().describe("A JSON schema of the metric's attributes"),
  aggregation_rules: jsonObject.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

/** A funnel definition (SPEC, Funnel definition): 1 to 20 steps, each filter naming a step or a screen. */
export const funnelBody = z.object({
  id: z.string().uuid(),
  project_id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  steps: z.array(funnelStep),
  created_at: timestamp,
  updated_at: timestamp,
});
