import type { Projection } from "./_runtime/projection.ts";
import { adsProjection } from "./ads/apply.ts";
import { appUsersProjection } from "./app-users/apply.ts";
import { attachmentsProjection } from "./attachments/apply.ts";
import { auditProjection } from "./audit/apply.ts";
import { directoryProjection } from "./directory/apply.ts";
import { eventsProjection } from "./events/apply.ts";
import { feedbackProjection } from "./feedback/apply.ts";
import { funnelEventsProjection } from "./funnel-events/apply.ts";
import { integrationsProjection } from "./integrations/apply.ts";
import { issuesProjection } from "./issues/apply.ts";
import { jobsProjection } from "./jobs/apply.ts";
import { metricEventsProjection } from "./metric-events/apply.ts";
import { notificationsProjection } from "./notifications/apply.ts";
import { ratingsProjection } from "./ratings/apply.ts";

/** Every read model the service builds, in the order they are migrated. */
export const PROJECTIONS: Projection[] = [directoryProjection, auditProjection, jobsProjection, eventsProjection, appUsersProjection, metricEventsProjection, funnelEventsProjection, attachmentsProjection, feedbackProjection, notificationsProjection, issuesProjection, ratingsProjection, integrationsProjection, adsProjection];

export function projectionNamed(name: string): Projection {
  const found = PROJECTIONS.find((projection) => projection.name === name);
  if (!found) throw new Error(`unknown read model ${name}; known: ${PROJECTIONS.map((p) => p.name).join(", ")}`);
  return found;
}

export const domainProjections = (): string[] => PROJECTIONS.filter((p) => p.stream === "DOMAIN").map((p) => p.name);

/** Every read model built from the INGEST stream. */
export const ingestProjections = (): string[] => PROJECTIONS.filter((p) => p.stream === "INGEST").map((p) => p.name);
