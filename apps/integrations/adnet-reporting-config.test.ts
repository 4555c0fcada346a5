import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.ts";

describe("the ad account settings (ADNET_*)", () => {
  it("are null without an org id and token: adnet_sync is then unconfigured", () => {
    expect(loadConfig({}).adnetReporting).toBeNull();
  });

  it("hold the API URL without a trailing slash, the org, the token and the timeout", () => {
    const config = loadConfig({ ADNET_API_URL: "https://ads.example.test/", ADNET_ORG_ID: "40669820", ADNET_ACCESS_TOKEN: "secret", ADNET_API_TIMEOUT_MS: "1500" });
    expect(config.adnetReporting).toEqual({ baseUrl: "https://ads.example.test", orgId: "40669820", accessToken: "secret", timeoutMs: 1500 });
  });

  it("refuse an org id without a token, a token without an org id and a non-numeric org id", () => {
    expect(() => loadConfig({ ADNET_ORG_ID: "40669820" })).toThrow(ConfigError);
    expect(() => loadConfig({ ADNET_ACCESS_TOKEN: "secret" })).toThrow(/ADNET_ORG_ID and ADNET_ACCESS_TOKEN must be set together/);
    expect(() => loadConfig({ ADNET_ORG_ID: "org-1", ADNET_ACCESS_TOKEN: "secret" })).toThrow(/ADNET_ORG_ID must be the numeric org id/);
  });
});
