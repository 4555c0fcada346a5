import type { Properties, PropertyPatch } from "./properties.ts";
import { ATTRIBUTION_KEYS } from "./properties.ts";

/** Path values of `POST /v1/identity/attribution/:source`; new networks add a value, not a path. */
export const ATTRIBUTION_SOURCES = ["adnet-search"] as const;

export const DEV_MOCKS = ["attributed", "unattributed", "pending"] as const;
export type DevMock = (typeof DEV_MOCKS)[number];

/** How long the SDK waits before asking again when the network has no record yet. */
export const PENDING_RETRY_SECONDS = 5;

/** What the search-ads attribution API answered for a token (its JSON body on 200). */
export type NetworkRecord = {
  attribution: boolean;
  campaignId?: unknown;
  adGroupId?: unknown;
  keywordId?: unknown;
  claimType?: unknown;
  adId?: unknown;
  creativeSetId?: unknown;
};

export type AttributionResult =
  | { kind: "attributed"; properties: Properties }
  | { kind: "unattributed"; properties: Properties }
  | { kind: "test_install"; properties: Properties }
  | { kind: "pending" };

// The network answers tokens of development and TestFlight installs with these fixed sample ids.
const TEST_CAMPAIGN_ID = "1234567890";
const TEST_AD_GROUP_ID = "1234567890";

const idText = (value: unknown): string | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && value !== "" && value.length <= 200) return value;
  return undefined;
};

/** Reads a 200 answer of the network into the properties the user gets. */
export function resultOf(record: NetworkRecord): AttributionResult {
  if (record.attribution !== true) return { kind: "unattributed", properties: { attribution_source: "none" } };
  const campaign = idText(record.campaignId);
  if (campaign === TEST_CAMPAIGN_ID && idText(record.adGroupId) === TEST_AD_GROUP_ID) {
    return { kind: "test_install", properties: { attribution_source: "adnet_test_install" } };
  }
  const candidates: [string, string | undefined][] = [
    ["attribution_source", "adnet_search"],
    ["adn_campaign_id", campaign],
    ["adn_ad_group_id", idText(record.adGroupId)],
    ["adn_keyword_id", idText(record.keywordId)],
    ["adn_claim_type", idText(record.claimType)],
    ["adn_ad_id", idText(record.adId)],
    ["adn_creative_set_id", idText(record.creativeSetId)],
  ];
  return { kind: "attributed", properties: Object.fromEntries(candidates.filter((entry): entry is [string, string] => entry[1] !== undefined)) };
}

/** Answers of the dev mocks (outside production), shaped like real network answers. */
export function mockResult(mock: DevMock): AttributionResult {
  if (mock === "pending") return { kind: "pending" };
  if (mock === "unattributed") return resultOf({ attribution: false });
  return resultOf({
    attribution: true,
    campaignId: 542370539,
    adGroupId: 542317095,
    keywordId: 87675432,
    claimType: "Click",
    adId: 542317136,
    creativeSetId: 542317100,
  });
}

/**
 * The attribution group is written whole: keys the result does not carry are removed, so a user
 * resolved again never keeps ids of an earlier answer.
 */
export function attributionPatch(properties: Properties): PropertyPatch {
  return { set: properties, unset: ATTRIBUTION_KEYS.filter((key) => !(key in properties)) };
}
