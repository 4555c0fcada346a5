import { Cron } from "croner";
import { z } from "zod";
import { MAX_PARTITIONS } from "../projections/_runtime/fact-partitions.ts";
import { SYSTEM_JOB_TYPES, type SystemJobType } from "../domain/jobs/catalogue.ts";
import { appStoreConfigOf, appStoreEnvironment, type AppStoreConfig } from "./app-store-config.ts";

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const environmentSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default("0.0.0.0"),
    DATABASE_URL: z
      .string()
      .url()
      .refine((value) => /^postgres(ql)?:\/\//.test(value), "must be a postgres:// URL")
      .default("postgres://postgres@127.0.0.1:5432/event_analytics"),
    // A streaming replica of DATABASE_URL for the API's queries (docs/operations.md); unset: the primary.
    DATABASE_READ_URL: optionalString.refine((value) => value === undefined || /^postgres(ql)?:\/\/[^/]/.test(value), "must be a postgres:// URL"),
    NATS_URL: z
      .string()
      .default("nats://127.0.0.1:4222")
      .transform((value) => value.split(",").map((server) => server.trim()).filter(Boolean))
      .refine((servers) => servers.length > 0, "must name at least one server"),
    // Copies of every stream and KV bucket: 1 on a single server, 3 on a cluster (docs/operations.md).
    STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
    INGEST_PARTITIONS: z.coerce.number().int().min(1).max(MAX_PARTITIONS).default(1),
    JWT_SECRET: optionalString,
    COOKIE_DOMAIN: optionalString,
    PUBLIC_BASE_URL: optionalString,
    SMTP_URL: optionalString.refine(
      (value) => value === undefined || /^smtps?:\/\//.test(value),
      "must be an smtp:// or smtps:// URL",
    ),
    MAIL_FROM: z.string().default("Event Analytics <no-reply@localhost>"),
    MAIL_OUTBOX_DIR: z.string().min(1).default(".data/outbox"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    NAMESPACE: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, "must be 1-32 letters, digits, '_' or '-'")
      .default("ea"),
    COUNTRY_HEADER: z.string().min(1).default("cf-ipcountry"),
    READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    LIVE_STREAMS_MAX: z.coerce.number().int().min(1).max(10_000).default(200),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
    ADNET_BASE_URL: z
      .string()
      .url()
      .refine((value) => /^https?:\/\//.test(value), "must be an http:// or https:// URL")
      .default("https://api-adservices.apple.com"),
    ADNET_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    ADNET_API_URL: z
      .string()
      .url()
      .refine((value) => /^https?:\/\//.test(value), "must be an http:// or https:// URL")
      .default("https://api.searchads.apple.com"),
    ADNET_ORG_ID: optionalString.refine((value) => value === undefined || /^\d{1,20}$/.test(value), "must be the numeric org id of the ad account"),
    ADNET_ACCESS_TOKEN: optionalString,
    ADNET_API_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    ...appStoreEnvironment,
    SUBPROV_BASE_URL: z
      .string()
      .url()
      .refine((value) => /^https?:\/\//.test(value), "must be an http:// or https:// URL")
      .default("https://api.revenuecat.com"),
    SUBPROV_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    // Where a process without the API (start:projector, start:worker) serves /metrics; unset: nowhere.
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    PROJECTOR_NICE: z.coerce.number().int().min(0).max(19).default(10),
    // Unset or naming none (",") means every read model, never a process that silently projects nothing.
    PROJECTORS: optionalString.transform((value) => {
      const names = value?.split(",").map((name) => name.trim()).filter(Boolean) ?? [];
      return names.length > 0 ? names : undefined;
    }),
    JOB_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
    JOB_SCHEDULES: optionalString.transform((value, ctx) => parseSchedules(value, ctx)),
    ATTACHMENTS_DIR: z.string().min(1).default(".data/attachments"),
    S3_BUCKET: optionalString.refine(
      (value) => value === undefined || /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value),
      "must be a bucket name: 3-63 lowercase letters, digits, '.' or '-'",
    ),
    S3_ENDPOINT: optionalString.refine(
      (value) => value === undefined || /^https?:\/\/[^/]/.test(value),
      "must be an http:// or https:// URL",
    ),
    S3_REGION: optionalString,
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    ATTACHMENTS_INTERNAL_REDIRECT: optionalString.refine(
      (value) => value === undefined || /^\/[\x21-\x7e]*\/$/.test(value),
      "must be a path that starts and ends with '/', like /protected-attachments/",
    ),
    APNS_URL: z.string().url().refine((value) => value.startsWith("https://"), "must be an https:// URL").default("https://api.push.apple.com"),
    APNS_SANDBOX_URL: z.string().url().refine((value) => value.startsWith("https://"), "must be an https:// URL").default("https://api.sandbox.push.apple.com"),
    APNS_KEY_ID: optionalString,
    APNS_TEAM_ID: optionalString,
    APNS_PRIVATE_KEY: optionalString,
    APNS_TOPIC: optionalString,
    APNS_CA_FILE: optionalString,
    S3_FORCE_PATH_STYLE: optionalString.refine(
      (value) => value === undefined || value === "true" || value === "false",
      "must be 'true' or 'false'",
    ),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && env.JWT_SECRET === undefined) {
      ctx.addIssue({ code: "custom", path: ["JWT_SECRET"], message: "is required when NODE_ENV=production" });
    }
    if (env.JWT_SECRET !== undefined && env.JWT_SECRET.length < 32) {
      ctx.addIssue({ code: "custom", path: ["JWT_SECRET"], message: "must be at least 32 characters" });
    }
    if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
      ctx.addIssue({ code: "custom", path: ["S3_ACCESS_KEY_ID"], message: "and S3_SECRET_ACCESS_KEY must be set together" });
    }
    // An org id without its token (or the reverse) would silently leave the adnet_sync job unconfigured: refuse instead.
    if ((env.ADNET_ORG_ID === undefined) !== (env.ADNET_ACCESS_TOKEN === undefined)) {
      ctx.addIssue({ code: "custom", path: ["ADNET_ORG_ID"], message: "and ADNET_ACCESS_TOKEN must be set together" });
    }
    // Part of the APNs settings would silently leave push off: refuse instead.
    const apns = ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_PRIVATE_KEY", "APNS_TOPIC"] as const;
    if (apns.some((name) => env[name] !== undefined)) {
      for (const name of apns) if (env[name] === undefined) ctx.addIssue({ code: "custom", path: [name], message: "is required with the other APNS_* settings" });
    }
    // S3 settings without a bucket would silently fall back to the filesystem: refuse instead.
    if (env.S3_BUCKET === undefined) {
      for (const name of ["S3_ENDPOINT", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const) {
        if (env[name] !== undefined) ctx.addIssue({ code: "custom", path: [name], message: "is set but S3_BUCKET is not" });
      }
    }
  });

export type Config = {
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string;
  databaseUrl: string;
  /** Where the API sends its queries (`DATABASE_READ_URL`, a streaming replica); undefined: `databaseUrl`. */
  databaseReadUrl: string | undefined;
  natsServers: string[];
  /** How many servers of the NATS cluster hold each stream and KV bucket (`STREAM_REPLICAS`). */
  streamReplicas: number;
  /** How many partitions, by project, each INGEST read model is split into, shared by the projector instances (`INGEST_PARTITIONS`). */
  ingestPartitions: number;
  /** The port of `/metrics` in a process without the API (`METRICS_PORT`); undefined: not served. */
  metricsPort: number | undefined;
  /**
   * HS256 key of session tokens and sign-in code hashes. Unset outside production: the API then
   * uses a random secret generated once per namespace and kept in NATS (streams/shared-secret.ts).
   */
  jwtSecret: string | undefined;
  cookieDomain: string | undefined;
  publicBaseUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  mailOutboxDir: string;
  logLevel: string;
  namespace: string;
  countryHeader: string;
  readYourWritesTimeoutMs: number;
  /** Live event streams (`GET /v1/events/live`) one API process serves at once; each holds a NATS consumer. */
  liveStreamsMax: number;
  databasePoolSize: number;
  adnetBaseUrl: string;
  adnetTimeoutMs: number;
  /** The ad account the adnet_sync job reads (Campaign Management API); null without ADNET_ORG_ID and ADNET_ACCESS_TOKEN. */
  adnetReporting: AdnetReportingConfig | null;
  /** The App Store lookups of the daily ratings sync (apps/app-store-config.ts). */
  appStore: AppStoreConfig;
  /** The subscription provider's REST API (docs/integrations.md): base URL and the timeout of each attempt. */
  subprov: { baseUrl: string; timeoutMs: number };
  projectorNice: number;
  /** The read models this process projects (`PROJECTORS`, comma-separated names); undefined: every one. */
  projectors: string[] | undefined;
  /**
   * How long a worker holds a running job without a heartbeat; it renews at a third of it, and
   * a run whose lease ended is failed by any worker's sweep (apps/worker/jobs/job-runner.ts).
   */
  jobLeaseMs: number;
  /** Cron patterns (UTC, seconds optional) replacing a job type's default schedule; "off" disables it. */
  jobSchedules: Partial<Record<SystemJobType, string>>;
  attachments: AttachmentsConfig;
  /**
   * With the filesystem store, downloads answer `X-Accel-Redirect: <this><storage key>` and no body,
   * for a proxy (nginx) to serve the file from an internal location (docs/operations.md).
   */
  attachmentsInternalRedirect: string | undefined;
  /** iOS push through APNs with a provider token; null (push disabled) without APNS_KEY_ID and the rest. */
  apns: ApnsConfig | null;
};

export type AdnetReportingConfig = { baseUrl: string; orgId: string; accessToken: string; timeoutMs: number };

export type ApnsConfig = {
  /** Gateways (`https://host[:port]`) for production and sandbox devices. */
  productionUrl: string;
  sandboxUrl: string;
  keyId: string;
  teamId: string;
  /** The .p8 signing key: its PEM text, or the path of its file. */
  privateKey: string;
  /** The app's bundle id, sent as `apns-topic`. */
  topic: string;
  /** A PEM file of extra trusted certificates for the gateway (a private gateway or a test's). */
  caFile: string | undefined;
};

/** Where attachment bytes live: S3 when a bucket is named, else the directory (relative to the working directory). */
export type AttachmentsConfig = {
  dir: string;
  s3: S3Config | null;
};

export type S3Config = {
  bucket: string;
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  /** Unset: the AWS SDK's default credential chain (environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
};

/** `JOB_SCHEDULES`: a JSON object of job type to cron pattern or "off", e.g. `{"retention_cleanup":"0 2 * * *"}`. */
function parseSchedules(value: string | undefined, ctx: z.RefinementCtx): Partial<Record<SystemJobType, string>> {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: "custom", message: 'must be a JSON object like {"retention_cleanup":"0 2 * * *"}' });
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    ctx.addIssue({ code: "custom", message: "must be a JSON object of job type to cron pattern" });
    return {};
  }
  const schedules: Partial<Record<SystemJobType, string>> = {};
  for (const [type, pattern] of Object.entries(parsed)) {
    if (!(SYSTEM_JOB_TYPES as readonly string[]).includes(type)) ctx.addIssue({ code: "custom", message: `names ${type}, which is not a scheduled job type` });
    else if (typeof pattern !== "string" || !validPattern(pattern)) ctx.addIssue({ code: "custom", message: `${type}: not a cron pattern or "off"` });
    else schedules[type as SystemJobType] = pattern;
  }
  return schedules;
}

function validPattern(pattern: string): boolean {
  if (pattern === "off") return true;
  try {
    new Cron(pattern, { paused: true, timezone: "UTC" }).stop();
    return true;
  } catch {
    return false;
  }
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads and validates the environment. @throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseReadUrl: e.DATABASE_READ_URL,
    natsServers: e.NATS_URL,
    streamReplicas: e.STREAM_REPLICAS,
    ingestPartitions: e.INGEST_PARTITIONS,
    metricsPort: e.METRICS_PORT,
    jwtSecret: e.JWT_SECRET,
    cookieDomain: e.COOKIE_DOMAIN,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailOutboxDir: e.MAIL_OUTBOX_DIR,
    logLevel: e.LOG_LEVEL,
    namespace: e.NAMESPACE,
    countryHeader: e.COUNTRY_HEADER.toLowerCase(),
    readYourWritesTimeoutMs: e.READ_YOUR_WRITES_TIMEOUT_MS,
    liveStreamsMax: e.LIVE_STREAMS_MAX,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    adnetBaseUrl: e.ADNET_BASE_URL.replace(/\/+$/, ""),
    adnetTimeoutMs: e.ADNET_TIMEOUT_MS,
    adnetReporting:
      e.ADNET_ORG_ID === undefined || e.ADNET_ACCESS_TOKEN === undefined
        ? null
        : { baseUrl: e.ADNET_API_URL.replace(/\/+$/, ""), orgId: e.ADNET_ORG_ID, accessToken: e.ADNET_ACCESS_TOKEN, timeoutMs: e.ADNET_API_TIMEOUT_MS },
    appStore: appStoreConfigOf(e),
    subprov: { baseUrl: e.SUBPROV_BASE_URL.replace(/\/+$/, ""), timeoutMs: e.SUBPROV_TIMEOUT_MS },
    projectorNice: e.PROJECTOR_NICE,
    projectors: e.PROJECTORS,
    jobLeaseMs: e.JOB_LEASE_MS,
    jobSchedules: e.JOB_SCHEDULES,
    attachmentsInternalRedirect: e.ATTACHMENTS_INTERNAL_REDIRECT,
    apns:
      e.APNS_KEY_ID === undefined || e.APNS_TEAM_ID === undefined || e.APNS_PRIVATE_KEY === undefined || e.APNS_TOPIC === undefined
        ? null
        : {
            productionUrl: e.APNS_URL.replace(/\/+$/, ""),
            sandboxUrl: e.APNS_SANDBOX_URL.replace(/\/+$/, ""),
            keyId: e.APNS_KEY_ID,
            teamId: e.APNS_TEAM_ID,
            privateKey: e.APNS_PRIVATE_KEY,
            topic: e.APNS_TOPIC,
            caFile: e.APNS_CA_FILE,
          },
    attachments: {
      dir: e.ATTACHMENTS_DIR,
      s3:
        e.S3_BUCKET === undefined
          ? null
          : {
              bucket: e.S3_BUCKET,
              endpoint: e.S3_ENDPOINT?.replace(/\/+$/, ""),
              region: e.S3_REGION ?? "us-east-1",
              credentials:
                e.S3_ACCESS_KEY_ID !== undefined && e.S3_SECRET_ACCESS_KEY !== undefined
                  ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
                  : undefined,
              forcePathStyle: e.S3_FORCE_PATH_STYLE === "true",
            },
    },
  };
}
