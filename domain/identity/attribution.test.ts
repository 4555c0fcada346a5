import { describe, expect, it } from "vitest";
import { attributionPatch, mockResult, resultOf } from "./attribution.ts";

describe("resultOf", () => {
  it("maps an attribution record to properties, ids as strings", () => {
    expect(resultOf({ attribution: true, campaignId: 5, adGroupId: 6, keywordId: 7, claimType: "Impression", adId: 8 })).toEqual({
      kind: "attributed",
      properties: { attribution_source: "adnet_search", adn_campaign_id: "5", adn_ad_group_id: "6", adn_keyword_id: "7", adn_claim_type: "Impression", adn_ad_id: "8" },
    });
  });

  it("reads no attribution as source none and the sample ids as a test install", () => {
    expect(resultOf({ attribution: false })).toEqual({ kind: "unattributed", properties: { attribution_source: "none" } });
    expect(resultOf({ attribution: true, campaignId: 1234567890, adGroupId: 1234567890, keywordId: 12323222 })).toEqual({
      kind: "test_install",
      properties: { attribution_source: "adnet_test_install" },
    });
  });

  it("ignores ids that are not plain numbers or short strings", () => {
    const result = resultOf({ attribution: true, campaignId: { x: 1 }, adGroupId: Number.NaN, adId: "" });
    expect(result).toEqual({ kind: "attributed", properties: { attribution_source: "adnet_search" } });
  });
});

describe("mocks and patches", () => {
  it("mocks every answer kind", () => {
    expect(mockResult("pending")).toEqual({ kind: "pending" });
    expect(mockResult("unattributed").kind).toBe("unattributed");
    expect(mockResult("attributed").kind).toBe("attributed");
  });

  it("writes the attribution group whole", () => {
    expect(attributionPatch({ attribution_source: "none" }).unset).toEqual([
      "adn_campaign_id",
      "adn_ad_group_id",
      "adn_keyword_id",
      "adn_claim_type",
      "adn_ad_id",
      "adn_creative_set_id",
    ]);
  });
});
