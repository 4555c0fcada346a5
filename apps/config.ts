import { z } from "zod";

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
    NATS_URL: z
      .string()
      .default("nats://127.0.0.1:4222")
      .transform((value) => value.split(",").map((server) => server.trim()).filter(Boolean))
      .refine((servers) => servers.length > 0, "must name at least one server"),
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
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
    ADNET_BASE_URL: z
      .string()
      .url()
      .refine((value) => /^https?:\/\//.test(value), "must be an http:// or https:// URL")
      .default("https://api-adservices.apple.com"),
    ADNET_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    PROJECTOR_NICE: z.coerce.number().int().min(0).max(19).default(10),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && env.JWT_SECRET === undefined) {
      ctx.addIssue({ code: "custom", path: ["JWT_SECRET"], message: "is required when NODE_ENV=production" });
    }
    if (env.JWT_SECRET !== undefined && env.JWT_SECRET.length < 32) {
      ctx.addIssue({ code: "custom", path: ["JWT_SECRET"], message: "must be at least 32 characters" });
    }
  });

export type Config = {
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string;
  databaseUrl: string;
  natsServers: string[];
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
  databasePoolSize: number;
  adnetBaseUrl: string;
  adnetTimeoutMs: number;
  projectorNice: number;
};

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
    natsServers: e.NATS_URL,
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
    databasePoolSize: e.DATABASE_POOL_SIZE,
    adnetBaseUrl: e.ADNET_BASE_URL.replace(/\/+$/, ""),
    adnetTimeoutMs: e.ADNET_TIMEOUT_MS,
    projectorNice: e.PROJECTOR_NICE,
  };
}
