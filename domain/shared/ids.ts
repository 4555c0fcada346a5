import { createHash, randomBytes, randomUUID } from "node:crypto";

export const newId = (): string => randomUUID();

/** A UUID derived from a name: replaying the same fact yields the same row id. */
export function derivedId(name: string): string {
  const hex = createHash("sha256").update(name).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const randomToken = (bytes = 24): string => randomBytes(bytes).toString("base64url");

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SLUG_PATTERN = /^[a-z0-9-]+$/;

const MAX_UUID_V7_MS = 2 ** 48 - 1;
const VARIANTS = "89ab";
let entropy = "";
let entropyOffset = 0;
// Events of a batch often share a timestamp: the hex of the last time is reused.
let lastMs = -1;
let lastTime = "";

/**
 * A version 7 UUID whose 48-bit time prefix is `ms`. Event ids carry the event's own timestamp, so
 * the id alone names the monthly partition an event lives in, and ids sort by event time.
 * @throws RangeError when `ms` is outside 1970 .. year 10889
 */
export function timeOrderedId(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_UUID_V7_MS) throw new RangeError(`no version 7 UUID for time ${ms}`);
  // Random hex is drawn in blocks (one call per ~200 ids) and sliced: this runs for every ingested event.
  if (entropyOffset + 19 > entropy.length) {
    entropy = randomBytes(2048).toString("hex");
    entropyOffset = 0;
  }
  const random = entropy.slice(entropyOffset, entropyOffset + 19);
  entropyOffset += 19;
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = ms.toString(16).padStart(12, "0");
  }
  const time = lastTime;
  const variant = VARIANTS[parseInt(random[18]!, 16) & 3]!;
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(0, 3)}-${variant}${random.slice(3, 6)}-${random.slice(6, 18)}`;
}

/** The time prefix of a version 7 UUID in ms, or null for any other id. */
export function timeOfId(id: string): number | null {
  if (!UUID_PATTERN.test(id) || id[14] !== "7") return null;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
