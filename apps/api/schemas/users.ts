import { z } from "zod";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

const text = z.string().nullable();

/** An app user of a project (SPEC, App user), as the per-app list shows it. */
export const appUserBody = z.object({
  id: z.string().uuid(),
  project_id: z.string().uuid(),
  user_id: z.string().describe("Anonymous ids start with svc_anon_"),
  is_anonymous: z.boolean(),
  first_seen_at: timestamp,
  last_seen_at: timestamp,
  last_country_code: text,
  last_app_version: text,
  last_sdk_name: text,
  last_sdk_version: text,
  claimed_from: z.array(z.string()).nullable().describe("Anonymous ids merged into this user"),
  properties: z.record(z.string()),
  apps: z.array(z.object({ app_id: z.string().uuid(), app_name: z.string(), first_seen_at: timestamp, last_seen_at: timestamp })),
  is_dev: z.boolean(),
});

/** The cross-app listing adds the user's last locale and preferred language. */
export const appUserWithLocaleBody = appUserBody.extend({
  last_locale: text,
  last_preferred_language: text.describe("Null until the SDK reports it"),
});

const usersPage = <S extends z.ZodTypeAny>(user: S) =>
  z.object({ users: z.array(user), cursor: z.string().nullable().describe("`<last_seen_at>|<id>`; null when has_more is false"), has_more: z.boolean() });

export const appUserPageBody = usersPage(appUserBody);
export const appUserWithLocalePageBody = usersPage(appUserWithLocaleBody);

/** A user as the documentation shows it. */
export const exampleAppUser = {
  id: "5d4c3b2a-1908-4f7e-8d6c-5b4a39281706",
  project_id: EXAMPLE.projectId,
  user_id: "user-42",
  is_anonymous: false,
  first_seen_at: "2026-10-01T09:30:00.000Z",
  last_seen_at: EXAMPLE.at,
  last_country_code: "US",
  last_app_version: "2.3.0",
  last_sdk_name: "swift",
  last_sdk_version: "1.8.2",
  claimed_from: ["svc_anon_3f9a1c"],
  properties: { plan: "yearly" },
  apps: [{ app_id: EXAMPLE.appId, app_name: "My app", first_seen_at: "2026-10-01T09:30:00.000Z", last_seen_at: EXAMPLE.at }],
  is_dev: false,
} satisfies z.input<typeof appUserBody>;

export const exampleAppUserPage = { users: [exampleAppUser], cursor: null, has_more: false } satisfies z.input<typeof appUserPageBody>;

export const exampleAppUserWithLocalePage = {
  users: [{ ...exampleAppUser, last_locale: "en_US", last_preferred_language: "en" }],
  cursor: null,
  has_more: false,
} satisfies z.input<typeof appUserWithLocalePageBody>;
