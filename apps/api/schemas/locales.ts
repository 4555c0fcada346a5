import { z } from "zod";

/** Locale demand of the users in scope (SPEC, Locale response). */
export const localeDemandBody = z.object({
  by_locale: z
    .array(
      z.object({
        locale: z.string(),
        base_language: z.string(),
        user_count: z.number().int(),
        shipped: z.boolean().nullable().describe("False when the apps do not ship the base language; null when no supported languages are known"),
      }),
    )
    .describe("Sorted by user_count, descending"),
  by_country: z.array(z.object({ country_code: z.string(), user_count: z.number().int() })).describe("From last_country_code, sorted by user_count, descending"),
  supported_languages: z.array(z.string()).nullable(),
  users_with_preferred_language: z.number().int(),
  total_users: z.number().int(),
});

export const exampleLocaleDemand = {
  by_locale: [
    { locale: "en_US", base_language: "en", user_count: 120, shipped: true },
    { locale: "pt_BR", base_language: "pt", user_count: 31, shipped: false },
  ],
  by_country: [
    { country_code: "US", user_count: 98 },
    { country_code: "BR", user_count: 30 },
  ],
  supported_languages: ["de", "en"],
  users_with_preferred_language: 87,
  total_users: 151,
} satisfies z.input<typeof localeDemandBody>;

/** Across projects no languages are known to be shipped, so no locale is flagged. */
export const exampleUnscopedLocaleDemand = {
  ...exampleLocaleDemand,
  by_locale: exampleLocaleDemand.by_locale.map((row) => ({ ...row, shipped: null })),
  supported_languages: null,
} satisfies z.input<typeof localeDemandBody>;
