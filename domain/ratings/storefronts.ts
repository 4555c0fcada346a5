/**
 * The App Store storefronts the ratings sync asks by default (`APP_STORE_COUNTRIES` replaces the
 * list): the largest markets by App Store spending and downloads. Ratings are kept per storefront,
 * so a storefront left out is simply not counted in the worldwide numbers.
 */
export const DEFAULT_STOREFRONTS = [
  "us", "gb", "ca", "au", "de", "fr", "it", "es", "nl", "be", "at", "ch", "se", "no", "dk", "pl",
  "br", "mx", "jp", "kr", "cn", "tw", "hk", "sg", "in", "id", "th", "tr", "sa", "ae",
] as const;

/** A storefront is named by its ISO 3166-1 alpha-2 code, lower case, as the store's `country` parameter takes it. */
export const STOREFRONT_CODE = /^[a-z]{2}$/;

/**
 * A storefront list as configured: comma or space separated, any letter case. Returns the codes
 * lower case, each once, in the order given, or the entries that are not two-letter codes.
 */
export function parseStorefronts(text: string): { codes: string[] } | { bad: string[] } {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== "").map((entry) => entry.toLowerCase());
  const bad = entries.filter((entry) => !STOREFRONT_CODE.test(entry));
  if (bad.length > 0) return { bad };
  return { codes: [...new Set(entries)] };
}
