import { describe, expect, it } from "vitest";
import { readLookupAnswer } from "./lookup-answer.ts";
import { parseStorefronts } from "./storefronts.ts";

/** A result as the Lookup API answers it, trimmed to a few of its many fields. */
const result = (fields: Record<string, unknown> = {}) => ({
  wrapperType: "software",
  kind: "software",
  trackId: 284882215,
  bundleId: "com.example.shop",
  trackName: "Shop",
  version: "3.2.1",
  averageUserRating: 4.61234,
  userRatingCount: 1520,
  averageUserRatingForCurrentVersion: 4.5,
  userRatingCountForCurrentVersion: 88,
  ...fields,
});

describe("lookup answers", () => {
  it("reads the numbers of a listed app", () => {
    expect(readLookupAnswer({ resultCount: 1, results: [result()] }, "com.example.shop")).toEqual({
      kind: "listed",
      ratings: {
        store_id: "284882215",
        average_rating: 4.61234,
        rating_count: 1520,
        current_version_rating: 4.5,
        current_version_rating_count: 88,
        version: "3.2.1",
      },
    });
  });

  it("says unlisted for resultCount 0", () => {
    expect(readLookupAnswer({ resultCount: 0, results: [] }, "com.example.shop")).toEqual({ kind: "unlisted" });
  });

  it("reads an app without ratings as zero counts and no averages", () => {
    const answer = readLookupAnswer(
      { resultCount: 1, results: [result({ averageUserRating: 0, userRatingCount: 0, averageUserRatingForCurrentVersion: undefined, userRatingCountForCurrentVersion: undefined })] },
      "com.example.shop",
    );
    expect(answer).toMatchObject({ kind: "listed", ratings: { average_rating: null, rating_count: 0, current_version_rating: null, current_version_rating_count: 0 } });
  });

  it("takes the result of the bundle id asked for", () => {
    const answer = readLookupAnswer({ resultCount: 2, results: [result({ trackId: 1, bundleId: "com.other" }), result({ trackId: 2 })] }, "com.example.shop");
    expect(answer).toMatchObject({ kind: "listed", ratings: { store_id: "2" } });
  });

  it("calls other shapes malformed, naming what is wrong", () => {
    expect(readLookupAnswer(null, "b")).toEqual({ kind: "malformed", reason: "the answer has no results array" });
    expect(readLookupAnswer({ errorMessage: "Invalid value(s) for key(s): [country]" }, "b")).toMatchObject({ kind: "malformed" });
    expect(readLookupAnswer({ resultCount: 1, results: [result({ trackId: "x" })] }, "com.example.shop")).toEqual({ kind: "malformed", reason: "the result has no trackId" });
    expect(readLookupAnswer({ resultCount: 1, results: [result({ userRatingCount: -1 })] }, "com.example.shop")).toEqual({ kind: "malformed", reason: "userRatingCount is not a count" });
    expect(readLookupAnswer({ resultCount: 1, results: [result({ averageUserRating: 7 })] }, "com.example.shop")).toEqual({
      kind: "malformed",
      reason: "averageUserRating is not a rating from 0 to 5",
    });
    expect(readLookupAnswer({ resultCount: 1, results: ["x"] }, "com.example.shop")).toEqual({ kind: "malformed", reason: "the results are not objects" });
  });
});

describe("storefront lists", () => {
  it("reads codes in any case and separator, each once", () => {
    expect(parseStorefronts("US, gb de,us")).toEqual({ codes: ["us", "gb", "de"] });
  });

  it("names the entries that are not two-letter codes", () => {
    expect(parseStorefronts("us,usa,1x")).toEqual({ bad: ["usa", "1x"] });
  });
});
