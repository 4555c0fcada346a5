import { z } from "zod";
import { ATTRIBUTION_SOURCES, DEV_MOCKS, type DevMock } from "../../../domain/identity/attribution.ts";
import { ANONYMOUS_PREFIX } from "../../../domain/identity/events.ts";
import { MAX_PROPERTIES, MAX_PROPERTY_KEY_CHARS, MAX_PROPERTY_VALUE_CHARS } from "../../../domain/identity/properties.ts";
import { MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { chars } from "../validation.ts";

// User ids are stored as events carry them, so they follow the ingest field limit. Text Postgres
// cannot store never gets this far (plugins/request-input.ts).
const userId = chars(MAX_FIELD_CHARS);

export const claimRequest = z.object({
  anonymous_id: userId.refine((id) => id.startsWith(ANONYMOUS_PREFIX), `must start with ${ANONYMOUS_PREFIX}`),
  user_id: userId.refine((id) => !id.startsWith(ANONYMOUS_PREFIX), `must not start with ${ANONYMOUS_PREFIX}`).describe("The known user id"),
});

export const claimAnswer = z.object({
  claimed: z.literal(true),
  events_reassigned_count: z.number().int().describe("Events moved to the user; 0 for a claim already made or made before any event"),
});

export const propertiesRequest = z.object({
  user_id: userId.describe(`A known or anonymous user id; a claimed ${ANONYMOUS_PREFIX} id stands for its claimer`),
  // Read key by key by domain/identity/properties.ts (readPropertyPatch), which names the bad key.
  properties: z
    .unknown()
    .refine((properties) => properties !== undefined, "required")
    .describe(
      `An object of strings merged into the user's: keys of 1 to ${MAX_PROPERTY_KEY_CHARS} characters, values of at most ` +
        `${MAX_PROPERTY_VALUE_CHARS}; an empty string deletes the key. At most ${MAX_PROPERTIES} properties after the merge.`,
    ),
});

/** Properties as a user holds them. */
const properties = z.record(z.string());

export const propertiesAnswer = z.object({ updated: z.literal(true), properties: properties.describe("Every property of the user after the merge") });

export const attributionParams = z.object({
  source: z.enum(ATTRIBUTION_SOURCES, { errorMap: () => ({ message: `unsupported attribution source; supported: ${ATTRIBUTION_SOURCES.join(", ")}` }) }),
});

/**
 * Dev mocks let SDK developers exercise every answer without a real token; production ignores the
 * field entirely (whatever it holds), so a shipped debug flag cannot fake attributions.
 */
const devMock = (production: boolean): z.ZodType<DevMock | undefined, z.ZodTypeDef, unknown> =>
  production
    ? z.unknown().transform(() => undefined)
    : z
        .enum(DEV_MOCKS)
        .nullish()
        .transform((mock) => mock ?? undefined);

export const attributionRequest = (production: boolean) =>
  z.object({
    user_id: userId,
    attribution_token: z.string().trim().min(1).max(10_000).describe("The token the SDK got from the ad network's framework"),
    dev_mock: devMock(production).describe("Answers as the network would, without calling it; ignored in production"),
  });

export const attributionAnswer = z.union([
  z.object({
    attributed: z.boolean().describe("false for an unattributed or a test install"),
    pending: z.literal(false),
    properties: properties.describe("The attribution properties stored on the user"),
  }),
  z.object({
    attributed: z.null(),
    pending: z.literal(true),
    retry_after_seconds: z.number().int().describe("Ask again after this many seconds"),
    properties: z.object({}).strict().describe("Nothing is stored while pending"),
  }),
]);

export const exampleAttributed = {
  attributed: true,
  pending: false,
  properties: {
    attribution_source: "adnet_search",
    adn_campaign_id: "542370539",
    adn_ad_group_id: "542317095",
    adn_keyword_id: "87675432",
    adn_claim_type: "Click",
    adn_ad_id: "542317136",
    adn_creative_set_id: "1911",
  },
};
