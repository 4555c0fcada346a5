import { createHash } from "node:crypto";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { Log } from "./connection.ts";
import { LogUnavailableError } from "./errors.ts";

/**
 * Uniqueness a fact depends on (team slug, project slug in a team, email → user) is claimed in
 * a KV bucket with `create`, which fails when the key exists, before the fact is appended.
 * Keys are hashed: KV keys allow only a small alphabet and emails do not fit it.
 */
export function reservationKey(scope: string, value: string): string {
  return `${scope}.${createHash("sha256").update(value).digest("hex").slice(0, 40)}`;
}

export type ReserveResult = { reserved: true } | { reserved: false; owner: string };

/**
 * Claims `key` for `owner`. Claiming again for the same owner succeeds (a retried command).
 * @throws LogUnavailableError when NATS cannot be reached
 */
export async function reserve(log: Log, key: string, owner: string): Promise<ReserveResult> {
  const bucket = await log.bucket("reservations");
  try {
    await bucket.create(key, owner);
    return { reserved: true };
  } catch (error) {
    if (!isAlreadyTaken(error)) throw new LogUnavailableError("reservation store unavailable", { cause: error });
    const entry = await bucket.get(key);
    if (!entry || entry.operation !== "PUT") return reserve(log, key, owner);
    const current = entry.string();
    return current === owner ? { reserved: true } : { reserved: false, owner: current };
  }
}

/** Returns who holds `key`, or null. */
export async function reservationOwner(log: Log, key: string): Promise<string | null> {
  const entry = await (await log.bucket("reservations")).get(key);
  return entry && entry.operation === "PUT" ? entry.string() : null;
}

/** Frees `key` if `owner` still holds it (a rename or delete, or a command that failed after reserving). */
export async function release(log: Log, key: string, owner: string): Promise<void> {
  const bucket = await log.bucket("reservations");
  const entry = await bucket.get(key);
  if (!entry || entry.operation !== "PUT" || entry.string() !== owner) return;
  await bucket.delete(key, { previousSeq: entry.revision }).catch(() => undefined);
}

function isAlreadyTaken(error: unknown): boolean {
  if (error instanceof JetStreamApiError) return error.code === JetStreamApiCodes.StreamWrongLastSequence;
  return error instanceof Error && /wrong last sequence/.test(error.message);
}

/** How long a claim may exist without its fact before another request may take it over. */
export const ABANDONED_AFTER_MS = 30_000;

/**
 * Takes over a reservation whose owner never made it onto the stream: a request that reserved and
 * then failed to append (NATS down, process killed) must not lock the value forever. The takeover
 * is a compare-and-set on the entry's revision, so two requests cannot both win it.
 * @param hasFacts whether the current owner's aggregate has any fact (then the claim is live)
 */
export async function takeOverAbandoned(
  log: Log,
  key: string,
  newOwner: string,
  hasFacts: (owner: string) => Promise<boolean>,
  now = Date.now(),
): Promise<boolean> {
  const bucket = await log.bucket("reservations");
  const entry = await bucket.get(key);
  if (!entry || entry.operation !== "PUT") return (await reserve(log, key, newOwner)).reserved;
  if (now - entry.created.getTime() < ABANDONED_AFTER_MS || (await hasFacts(entry.string()))) return false;
  try {
    await bucket.update(key, newOwner, entry.revision);
    return true;
  } catch {
    return false;
  }
}
