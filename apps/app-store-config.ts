import { z } from "zod";
import { DEFAULT_STOREFRONTS, parseStorefronts } from "../domain/ratings/storefronts.ts";

/** The App Store's public Lookup API, asked by the daily `app_ratings_sync` (docs/integrations.md, App store ratings). */
export type AppStoreConfig = {
  /** Base URL without a trailing slash; requests go to `<lookupUrl>/lookup?bundleId=…&country=…`. */
  lookupUrl: string;
  /** How long one request may take, answer included. */
  timeoutMs: number;
  /** Storefronts asked for every app, lower-case ISO 3166-1 alpha-2 codes. */
  countries: string[];
  /** Further attempts after a 429, a 5xx, a timeout or a network error. */
  retries: number;
  /** Wait before the first retry; it doubles with each further one (a `Retry-After` may ask for longer). */
  retryBaseMs: number;
  /** Least time between two requests: the store allows a caller about 20 a minute. */
  requestIntervalMs: number;
};

/** The `APP_STORE_*` variables, part of the environment schema of `apps/config.ts`. */
export const appStoreEnvironment = {
  APP_STORE_LOOKUP_URL: z
    .string()
    .url()
    .refine((value) => /^https?:\/\//.test(value), "must be an http:// or https:// URL")
    .default("https://itunes.apple.com"),
  APP_STORE_TIMEOUT_MS: z.coerce.number().int().positive().max(120_000).default(10_000),
  APP_STORE_COUNTRIES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return [...DEFAULT_STOREFRONTS];
      const parsed = parseStorefronts(value);
      if ("bad" in parsed) {
        ctx.addIssue({ code: "custom", message: `must be two-letter country codes separated by commas, not ${parsed.bad.join(", ")}` });
        return [];
      }
      if (parsed.codes.length === 0) ctx.addIssue({ code: "custom", message: "must name at least one country" });
      return parsed.codes;
    }),
  APP_STORE_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  APP_STORE_RETRY_BASE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  APP_STORE_REQUEST_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
};

type AppStoreEnvironment = z.infer<z.ZodObject<typeof appStoreEnvironment>>;

export const appStoreConfigOf = (e: AppStoreEnvironment): AppStoreConfig => ({
  lookupUrl: e.APP_STORE_LOOKUP_URL.replace(/\/+$/, ""),
  timeoutMs: e.APP_STORE_TIMEOUT_MS,
  countries: e.APP_STORE_COUNTRIES,
  retries: e.APP_STORE_RETRIES,
  retryBaseMs: e.APP_STORE_RETRY_BASE_MS,
  requestIntervalMs: e.APP_STORE_REQUEST_INTERVAL_MS,
});
