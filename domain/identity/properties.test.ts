import { describe, expect, it } from "vitest";
import { DomainError } from "../shared/errors.ts";
import { applyPatch, effectivePatch, mergeOnClaim, readPropertyPatch } from "./properties.ts";

const many = (prefix: string, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${String(i).padStart(2, "0")}`, "v"]));

describe("readPropertyPatch", () => {
  it("splits sets from deletes (empty strings)", () => {
    expect(readPropertyPatch({ a: "1", b: "" })).toEqual({ set: { a: "1" }, unset: ["b"] });
  });

  it.each([[{ ["k".repeat(51)]: "v" }], [{ "": "v" }], [{ k: "v".repeat(201) }], [{ k: 1 }], [{ k: null }], [[]], [null], ["x"]])("rejects %j as invalid", (raw) => {
    expect(() => readPropertyPatch(raw)).toThrowError(DomainError);
  });

  it("keeps __proto__ as an ordinary key", () => {
    const patch = readPropertyPatch(JSON.parse('{"__proto__": "x"}'));
    expect(Object.keys(patch.set)).toEqual(["__proto__"]);
    const next = applyPatch({}, patch);
    expect(Object.keys(next)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
  });
});

describe("effectivePatch and applyPatch", () => {
  it("drops unchanged values and deletes of absent keys, and sorts the result", () => {
    const current = { b: "2", a: "1" };
    const change = effectivePatch(current, { set: { a: "1", c: "3" }, unset: ["b", "zz"] });
    expect(change).toEqual({ set: { c: "3" }, unset: ["b"] });
    expect(Object.keys(applyPatch(current, change))).toEqual(["a", "c"]);
  });
});

describe("mergeOnClaim", () => {
  it("lets the identified user's values win", () => {
    expect(mergeOnClaim({ plan: "trial", color: "red" }, { plan: "pro" })).toEqual({ color: "red", plan: "pro" });
  });

  it("keeps the best attribution, whichever side has it", () => {
    const attributed = { attribution_source: "adnet_search", adn_campaign_id: "1" };
    expect(mergeOnClaim(attributed, { attribution_source: "none" })).toEqual(attributed);
    expect(mergeOnClaim({ attribution_source: "none" }, attributed)).toEqual(attributed);
    expect(mergeOnClaim({ attribution_source: "none" }, {})).toEqual({ attribution_source: "none" });
    expect(mergeOnClaim({ attribution_source: "adnet_test_install" }, { attribution_source: "none" })).toEqual({ attribution_source: "none" });
  });

  it("never holds more than 50 keys", () => {
    const merged = mergeOnClaim(many("anon", 30), many("known", 30));
    expect(Object.keys(merged)).toHaveLength(50);
    expect(Object.keys(merged).filter((key) => key.startsWith("known"))).toHaveLength(30);
    const withAttribution = mergeOnClaim({ attribution_source: "adnet_search", adn_ad_id: "9" }, many("known", 50));
    expect(Object.keys(withAttribution)).toHaveLength(50);
    expect(withAttribution.attribution_source).toBe("adnet_search");
  });
});
