import { z } from "zod";
import { funnelStep } from "../../../domain/definitions/events.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

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

const exampleSchema = { type: "object", properties: { step: { type: "string" } } };

/** Creating a metric of the example project, and the definition answered. */
export const metricCreateExamples = {
  body: { name: "Checkout", slug: "checkout", description: "From cart to paid order", schema_definition: exampleSchema },
  201: {
    id: "0b5f3f3e-8f4a-4c8e-9d61-2a7f5c1e9b20",
    project_id: EXAMPLE.projectId,
    name: "Checkout",
    slug: "checkout",
    description: "From cart to paid order",
    documentation: null,
    schema_definition: exampleSchema,
    aggregation_rules: null,
    created_at: EXAMPLE.at,
    updated_at: EXAMPLE.at,
  } satisfies z.input<typeof metricBody>,
};

const exampleSteps = [
  { name: "Opened the shop", event_filter: { screen_name: "Shop" } },
  { name: "Added to cart", event_filter: { step_name: "add_to_cart" } },
  { name: "Paid", event_filter: { step_name: "paid" } },
];

/** Creating a funnel of the example project, and the definition answered. */
export const funnelCreateExamples = {
  body: { name: "Purchase", slug: "purchase", steps: exampleSteps },
  201: {
    id: "3d0c8a2e-5b71-4f6a-9e43-1c2b7d8e9f01",
    project_id: EXAMPLE.projectId,
    name: "Purchase",
    slug: "purchase",
    description: null,
    steps: exampleSteps,
    created_at: EXAMPLE.at,
    updated_at: EXAMPLE.at,
  } satisfies z.input<typeof funnelBody>,
};
