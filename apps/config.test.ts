import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("uses the embedded defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      natsServers: ["nats://127.0.0.1:4222"],
      namespace: "ea",
      mailOutboxDir: ".data/outbox",
      databaseUrl: "postgres://postgres@127.0.0.1:5432/event_analytics",
    });
  });

  it("splits a NATS cluster list", () => {
    expect(loadConfig({ NATS_URL: "nats://a:4222, nats://b:4222" }).natsServers).toEqual(["nats://a:4222", "nats://b:4222"]);
  });

  it("names every bad variable in one message", () => {
    expect(() => loadConfig({ PORT: "eighty", NAMESPACE: "a.b", DATABASE_URL: "mysql://x" })).toThrowError(ConfigError);
    try {
      loadConfig({ PORT: "eighty", NAMESPACE: "a.b", DATABASE_URL: "mysql://x" });
    } catch (error) {
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/NAMESPACE/);
      expect((error as Error).message).toMatch(/DATABASE_URL/);
    }
  });

  it("requires JWT_SECRET in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrowError(/JWT_SECRET/);
    expect(loadConfig({ NODE_ENV: "production", JWT_SECRET: "s".repeat(40) }).jwtSecret).toBe("s".repeat(40));
  });

  it("leaves JWT_SECRET unset outside production instead of falling back to a constant", () => {
    expect(loadConfig({}).jwtSecret).toBeUndefined();
    expect(loadConfig({ NODE_ENV: "test", JWT_SECRET: "  " }).jwtSecret).toBeUndefined();
    expect(loadConfig({ NODE_ENV: "development", JWT_SECRET: "d".repeat(32) }).jwtSecret).toBe("d".repeat(32));
    expect(() => loadConfig({ JWT_SECRET: "short" })).toThrowError(/JWT_SECRET must be at least 32 characters/);
  });
});
