import { invalid } from "../shared/errors.ts";
import { isStorableText, longerThan } from "../shared/text.ts";

/** SPEC Limits: user properties. */
export const MAX_PROPERTY_KEY_CHARS = 50;
export const MAX_PROPERTY_VALUE_CHARS = 200;
export const MAX_PROPERTIES = 50;

export type Properties = Record<string, string>;
export type PropertyPatch = { set: Properties; unset: string[] };

/** The keys the attribution route writes; they travel together as one group. */
export const ATTRIBUTION_KEYS = [
  "attribution_source",
  "adn_campaign_id",
  "adn_ad_group_id",
  "adn_keyword_id",
  "adn_claim_type",
  "adn_ad_id",
  "adn_creative_set_id",
] as const;

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/**
 * Reads the `properties` object of a request: keys 1-50 characters, values strings of at most 200
 * characters, an empty string deleting the key.
 * @throws DomainError invalid naming the first bad key
 */
export function readPropertyPatch(raw: unknown): PropertyPatch {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalid("properties: must be an object of strings");
  const set: [string, string][] = [];
  const unset: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key.length === 0) throw invalid("properties: keys must not be empty");
    if (longerThan(key, MAX_PROPERTY_KEY_CHARS)) throw invalid(`properties: key ${JSON.stringify(key.slice(0, 60))} is longer than ${MAX_PROPERTY_KEY_CHARS} characters`);
    if (!isStorableText(key)) throw invalid("properties: keys must not contain NUL or unpaired surrogate characters");
    if (typeof value !== "string") throw invalid(`properties.${key}: must be a string`);
    if (!isStorableText(value)) throw invalid(`properties.${key}: must not contain NUL or unpaired surrogate characters`);
    if (longerThan(value, MAX_PROPERTY_VALUE_CHARS)) throw invalid(`properties.${key}: must be at most ${MAX_PROPERTY_VALUE_CHARS} characters`);
    if (value === "") unset.push(key);
    else set.push([key, value]);
  }
  return { set: Object.fromEntries(set), unset };
}

/** The part of `patch` that changes `current`: unchanged values and deletes of absent keys drop out. */
export function effectivePatch(current: Properties, patch: PropertyPatch): PropertyPatch {
  const set = Object.entries(patch.set).filter(([key, value]) => !hasOwn(current, key) || current[key] !== value);
  return { set: Object.fromEntries(set), unset: patch.unset.filter((key) => hasOwn(current, key)) };
}

export const isEmptyPatch = (patch: PropertyPatch) => Object.keys(patch.set).length === 0 && patch.unset.length === 0;

// Objects are built with Object.fromEntries throughout: it defines own properties, so a key such as
// "__proto__" stays an ordinary key instead of changing the object's prototype.

/** `current` with `patch` applied; keys come out sorted so stored objects compare equal. */
export function applyPatch(current: Properties, patch: PropertyPatch): Properties {
  const next = new Map(Object.entries(current));
  for (const key of patch.unset) next.delete(key);
  for (const [key, value] of Object.entries(patch.set)) next.set(key, value);
  return sortedFrom(next);
}

/** `properties` with its keys sorted, as every merge stores them. */
export const sortedProperties = (properties: Properties): Properties => sortedFrom(new Map(Object.entries(properties)));

function sortedFrom(entries: Map<string, string>): Properties {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Properties of the identified user after an anonymous record is merged into it. The identified
 * user's values win, except the attribution group: it comes from whichever side is attributed
 * best (an ad-network attribution beats "none" or a test install, which beat nothing), so the
 * attribution an anonymous install resolved survives the claim. A claim cannot be refused for
 * size, so anonymous keys are added (after the identified user's, by name) only while fewer than
 * 50; when the attribution group pushes a full record over 50, the last keys by name give way.
 */
export function mergeOnClaim(anonymous: Properties, identified: Properties): Properties {
  const attributionFrom = attributionRank(anonymous) > attributionRank(identified) ? anonymous : identified;
  const attribution = ATTRIBUTION_KEYS.filter((key) => hasOwn(attributionFrom, key)).map((key) => [key, attributionFrom[key]!] as const);
  const others = new Map(Object.entries(identified).filter(([key]) => !isAttributionKey(key)));
  const room = () => MAX_PROPERTIES - attribution.length - others.size;
  for (const key of Object.keys(anonymous).filter((key) => !isAttributionKey(key)).sort()) {
    if (room() <= 0) break;
    if (!others.has(key)) others.set(key, anonymous[key]!);
  }
  const kept = [...others].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, Math.max(0, MAX_PROPERTIES - attribution.length));
  return sortedFrom(new Map([...kept, ...attribution]));
}

const isAttributionKey = (key: string) => (ATTRIBUTION_KEYS as readonly string[]).includes(key);

function attributionRank(properties: Properties): number {
  if (!hasOwn(properties, "attribution_source")) return 0;
  return properties.attribution_source === "adnet_search" ? 2 : 1;
}
