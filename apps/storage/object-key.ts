import { InvalidObjectKeyError } from "./storage-errors.ts";

// Segments stay well under the 255-byte file-name limit once the filesystem driver adds its
// temporary-file prefix and suffix; the whole key stays under S3's 1024-byte limit.
const SEGMENT = "[A-Za-z0-9_-]{1,128}";
const KEY = new RegExp(`^${SEGMENT}(/${SEGMENT})*$`);
const ONE_SEGMENT = new RegExp(`^${SEGMENT}$`);
const MAX_KEY_LENGTH = 1024;

/** True for keys like `<project_id>/<attachment_id>/<upload_id>`: no `.`, no empty segment, no leading `/`. */
export function isObjectKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY.test(key);
}

/** @throws InvalidObjectKeyError unless `isObjectKey(key)`. */
export function assertObjectKey(key: string): void {
  if (!isObjectKey(key)) throw new InvalidObjectKeyError(key);
}

/** A list prefix is a key's beginning: empty, or a key optionally followed by `/` or cut inside a segment. */
export function assertKeyPrefix(prefix: string): void {
  if (prefix === "") return;
  const complete = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  if (!isObjectKey(complete)) throw new InvalidObjectKeyError(prefix);
}

/** The segment a file name must have to be a stored object; anything else in the tree is not ours. */
export function isKeySegment(name: string): boolean {
  return ONE_SEGMENT.test(name);
}
