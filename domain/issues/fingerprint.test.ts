import { describe, expect, it } from "vitest";
import { groupingOf, networkKey, normalizeMessage } from "./fingerprint.ts";

const error = (message: string, fields: { source_module?: string | null; custom_attributes?: Record<string, string> } = {}) => ({
  message,
  source_module: fields.source_module ?? "Checkout",
  custom_attributes: fields.custom_attributes ?? {},
});

describe("normalizeMessage", () => {
  it.each([
    ["User 123 not found", "user <n> not found"],
    ["Order 7f9c2a1e-3b4d-4c5e-9f00-112233445566 failed", "order <uuid> failed"],
    ['Cannot open "report.pdf"', "cannot open <str>"],
    ["Key 'a1' missing", "key <str> missing"],
    ["Bad pointer 0xDEADBEEF", "bad pointer <hex>"],
    ["Took 12.5 s", "took <n> s"],
    ["  Many\t spaces\n here  ", "many spaces here"],
    ["CASE Folded", "case folded"],
    ['id "7f9c2a1e-3b4d-4c5e-9f00-112233445566" bad', "id <str> bad"],
  ])("%s → %s", (message, expected) => expect(normalizeMessage(message)).toBe(expected));
});

describe("networkKey", () => {
  it("templates ids in the path and drops the query", () => {
    expect(networkKey("get", "https://API.example.com/users/42/orders/7f9c2a1e-3b4d-4c5e-9f00-112233445566?page=2")).toBe("GET api.example.com/users/:id/orders/:id");
  });
  it("templates long hex and digit-bearing tokens, keeps words", () => {
    expect(networkKey("POST", "https://x.io/v1/files/abcdef0123456789abcd/tokens/a1b2c3d4e5f6g7h8i9")).toBe("POST x.io/v1/files/:id/tokens/:id");
  });
  it("copes with a relative URL and a missing method", () => {
    expect(networkKey(undefined, "/items/9?x=1")).toBe("? /items/:id");
  });
});

describe("groupingOf", () => {
  it("groups the same error with different ids", () => {
    expect(groupingOf(error("User 123 not found")).fingerprint).toBe(groupingOf(error("user 98765 not found")).fingerprint);
  });
  it("splits by source module", () => {
    expect(groupingOf(error("boom", { source_module: "A" })).fingerprint).not.toBe(groupingOf(error("boom", { source_module: "B" })).fingerprint);
  });
  it("splits one call site by _error_type", () => {
    const timeout = groupingOf(error("save failed", { custom_attributes: { _error_type: "Timeout" } }));
    const denied = groupingOf(error("save failed", { custom_attributes: { _error_type: "PermissionDenied" } }));
    expect(timeout.fingerprint).not.toBe(denied.fingerprint);
  });
  it("groups network errors by method, host and templated path", () => {
    const request = (method: string, url: string) => groupingOf(error("sdk:network_request", { custom_attributes: { _http_method: method, _http_url: url } }));
    expect(request("GET", "https://a.io/users/1").fingerprint).toBe(request("get", "https://a.io/users/2?x=1").fingerprint);
    expect(request("GET", "https://a.io/users/1").fingerprint).not.toBe(request("POST", "https://a.io/users/1").fingerprint);
    expect(request("GET", "https://a.io/users/1").fingerprint).not.toBe(request("GET", "https://b.io/users/1").fingerprint);
    expect(request("GET", "https://a.io/users/1").title).toBe("sdk:network_request GET a.io/users/:id");
  });
  it("titles an issue with the message, at most 200 characters", () => {
    expect(groupingOf(error("x".repeat(300))).title).toHaveLength(200);
    expect(groupingOf(error("   ")).title).toBe("(empty message)");
  });
});
