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

  it("reads the replica count of streams and buckets, 1 by default, 1 to 5 copies", () => {
    expect(loadConfig({}).streamReplicas).toBe(1);
    expect(loadConfig({ STREAM_REPLICAS: "3" }).streamReplicas).toBe(3);
    for (const bad of ["0", "6", "two", "1.5"]) expect(() => loadConfig({ STREAM_REPLICAS: bad })).toThrow(/STREAM_REPLICAS/);
    expect(loadConfig({}).ingestPartitions).toBe(1);
    expect(loadConfig({ INGEST_PARTITIONS: "4" }).ingestPartitions).toBe(4);
    for (const bad of ["0", "65", "four"]) expect(() => loadConfig({ INGEST_PARTITIONS: bad })).toThrow(/INGEST_PARTITIONS/);
  });

  it("reads the read models a process projects, every one when PROJECTORS is unset or empty", () => {
    expect(loadConfig({ PROJECTORS: "events, app_users" }).projectors).toEqual(["events", "app_users"]);
    expect(loadConfig({}).projectors).toBeUndefined();
    expect(loadConfig({ PROJECTORS: " " }).projectors).toBeUndefined();
    expect(loadConfig({ PROJECTORS: "," }).projectors).toBeUndefined();
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

  it("keeps attachments on the filesystem unless a bucket is named", () => {
    expect(loadConfig({}).attachments).toEqual({ dir: ".data/attachments", s3: null });
    expect(loadConfig({ ATTACHMENTS_DIR: "/srv/attachments" }).attachments.dir).toBe("/srv/attachments");
  });

  it("reads the S3 settings when S3_BUCKET is set", () => {
    expect(loadConfig({ S3_BUCKET: "attachments" }).attachments.s3).toEqual({
      bucket: "attachments",
      endpoint: undefined,
      region: "us-east-1",
      credentials: undefined,
      forcePathStyle: false,
    });
    const s3 = loadConfig({
      S3_BUCKET: "attachments",
      S3_ENDPOINT: "http://minio:9000/",
      S3_REGION: "eu-west-3",
      S3_ACCESS_KEY_ID: "key-id",
      S3_SECRET_ACCESS_KEY: "key-secret",
      S3_FORCE_PATH_STYLE: "true",
    }).attachments.s3;
    expect(s3).toEqual({
      bucket: "attachments",
      endpoint: "http://minio:9000",
      region: "eu-west-3",
      credentials: { accessKeyId: "key-id", secretAccessKey: "key-secret" },
      forcePathStyle: true,
    });
  });

  it("refuses incomplete or malformed S3 settings without repeating the secret", () => {
    expect(() => loadConfig({ S3_BUCKET: "Not_A_Bucket" })).toThrowError(/S3_BUCKET/);
    expect(() => loadConfig({ S3_BUCKET: "attachments", S3_ENDPOINT: "minio:9000" })).toThrowError(/S3_ENDPOINT/);
    expect(() => loadConfig({ S3_BUCKET: "attachments", S3_FORCE_PATH_STYLE: "yes" })).toThrowError(/S3_FORCE_PATH_STYLE/);
    expect(() => loadConfig({ S3_ENDPOINT: "http://minio:9000" })).toThrowError(/S3_ENDPOINT is set but S3_BUCKET is not/);
    const secret = "very-secret-value-0123456789";
    expect(() => loadConfig({ S3_BUCKET: "attachments", S3_SECRET_ACCESS_KEY: secret })).toThrowError(/S3_ACCESS_KEY_ID/);
    let message = "";
    try {
      loadConfig({ S3_SECRET_ACCESS_KEY: secret });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/S3_SECRET_ACCESS_KEY is set but S3_BUCKET is not/);
    expect(message).not.toContain(secret);
  });
});
