import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../config.ts";

describe("APNs settings", () => {
  const all = { APNS_KEY_ID: "KEY", APNS_TEAM_ID: "TEAM", APNS_PRIVATE_KEY: "/keys/auth.p8", APNS_TOPIC: "com.example.app" };

  it("leaves push off without them", () => {
    expect(loadConfig({}).apns).toBeNull();
  });

  it("takes the four together, with Apple's gateways by default", () => {
    expect(loadConfig(all).apns).toEqual({
      productionUrl: "https://api.push.apple.com",
      sandboxUrl: "https://api.sandbox.push.apple.com",
      keyId: "KEY",
      teamId: "TEAM",
      privateKey: "/keys/auth.p8",
      topic: "com.example.app",
      caFile: undefined,
    });
    expect(loadConfig({ ...all, APNS_URL: "https://127.0.0.1:8443/" }).apns?.productionUrl).toBe("https://127.0.0.1:8443");
  });

  it("refuses part of them, and a gateway that is not https", () => {
    expect(() => loadConfig({ APNS_KEY_ID: "KEY" })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...all, APNS_URL: "http://gateway" })).toThrowError(/APNS_URL/);
  });
});
