import { describe, expect, it } from "vitest";
import { DEFAULT_STOREFRONTS } from "../domain/ratings/storefronts.ts";
import { ConfigError, loadConfig } from "./config.ts";

describe("App Store settings", () => {
  it("default to the public Lookup API and the main storefronts", () => {
    expect(loadConfig({}).appStore).toEqual({
      lookupUrl: "https://itunes.apple.com",
      timeoutMs: 10_000,
      countries: [...DEFAULT_STOREFRONTS],
      retries: 3,
      retryBaseMs: 1_000,
      requestIntervalMs: 3_000,
    });
  });

  it("take a base URL, storefronts in any case and the retry policy", () => {
    const config = loadConfig({
      APP_STORE_LOOKUP_URL: "http://127.0.0.1:9000/store/",
      APP_STORE_COUNTRIES: "US, gb,de us",
      APP_STORE_TIMEOUT_MS: "500",
      APP_STORE_RETRIES: "0",
      APP_STORE_RETRY_BASE_MS: "50",
      APP_STORE_REQUEST_INTERVAL_MS: "0",
    });
    expect(config.appStore).toEqual({ lookupUrl: "http://127.0.0.1:9000/store", timeoutMs: 500, countries: ["us", "gb", "de"], retries: 0, retryBaseMs: 50, requestIntervalMs: 0 });
  });

  it("refuse storefronts that are not two-letter codes, and a bad URL or policy, naming each", () => {
    const load = () => loadConfig({ APP_STORE_COUNTRIES: "us,usa", APP_STORE_LOOKUP_URL: "ftp://store", APP_STORE_RETRIES: "11", APP_STORE_TIMEOUT_MS: "0" });
    expect(load).toThrowError(ConfigError);
    expect(load).toThrowError(/APP_STORE_COUNTRIES must be two-letter country codes separated by commas, not usa/);
    expect(load).toThrowError(/APP_STORE_LOOKUP_URL/);
    expect(load).toThrowError(/APP_STORE_RETRIES/);
    expect(load).toThrowError(/APP_STORE_TIMEOUT_MS/);
    expect(() => loadConfig({ APP_STORE_COUNTRIES: " , " })).toThrowError(/APP_STORE_COUNTRIES must name at least one country/);
  });
});
