import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import type { KV } from "@nats-io/kv";
import { rateLimited, unauthorized } from "../../../domain/shared/errors.ts";
import { LogUnavailableError } from "../../../streams/errors.ts";
import { reservationKey } from "../../../streams/reservations.ts";

const SENDS_PER_HOUR = 5;
const HOUR_MS = 60 * 60 * 1000;
const CODE_TTL_MS = 10 * 60 * 1000;
/** After this many wrong guesses every outstanding code of the email is void (brute-force guard). */
const MAX_FAILED_ATTEMPTS = 10;

type CodeRecord = {
  sends: number[];
  codes: { hash: string; expiresAt: number; used: boolean }[];
  failedAttempts: number;
};

const empty = (): CodeRecord => ({ sends: [], codes: [], failedAttempts: 0 });

/**
 * Sign-in codes are transient state, not domain facts: they live hashed in the `auth_codes` KV
 * bucket (one key per email, 1-hour TTL) and every change is a compare-and-set on the entry's
 * revision, so concurrent sends and verifies cannot lose an update or use a code twice.
 */
export class SignInCodes {
  constructor(
    private readonly bucket: () => Promise<KV>,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Issues a new code. @throws DomainError rate_limited after 5 codes for this email within an hour */
  async issue(email: string): Promise<string> {
    const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
    await this.#update(email, (record) => {
      const now = this.now();
      record.sends = record.sends.filter((at) => at > now - HOUR_MS);
      if (record.sends.length >= SENDS_PER_HOUR) throw rateLimited("too many codes requested for this email; try again later");
      record.sends.push(now);
      record.codes = record.codes.filter((entry) => entry.expiresAt > now && !entry.used);
      record.codes.push({ hash: this.#hash(email, code), expiresAt: now + CODE_TTL_MS, used: false });
      return record;
    });
    return code;
  }

  /**
   * Checks a code; with `consume` it is marked used in the same compare-and-set.
   * @throws DomainError unauthorized when the code is wrong, expired or already used
   */
  async verify(email: string, code: string, consume: boolean): Promise<void> {
    const hash = this.#hash(email, code);
    let matched = false;
    await this.#update(email, (record) => {
      const now = this.now();
      const entry = record.failedAttempts < MAX_FAILED_ATTEMPTS
        ? record.codes.find((candidate) => !candidate.used && candidate.expiresAt > now && sameHash(candidate.hash, hash))
        : undefined;
      matched = entry !== undefined;
      if (!entry) {
        record.failedAttempts += 1;
        return record;
      }
      if (!consume) return null;
      entry.used = true;
      record.failedAttempts = 0;
      return record;
    });
    if (!matched) throw unauthorized("invalid or expired code");
  }

  #hash(email: string, code: string): string {
    return createHmac("sha256", this.secret).update(`${email}\n${code}`).digest("hex");
  }

  async #update(email: string, change: (record: CodeRecord) => CodeRecord | null): Promise<void> {
    const bucket = await this.bucket();
    const key = reservationKey("code", email);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const entry = await bucket.get(key).catch((error) => {
        throw new LogUnavailableError("code store unavailable", { cause: error });
      });
      const current = entry && entry.operation === "PUT" ? (entry.json() as CodeRecord) : empty();
      const next = change(current);
      if (next === null) return;
      try {
        if (entry) await bucket.update(key, JSON.stringify(next), entry.revision);
        else await bucket.create(key, JSON.stringify(next));
        return;
      } catch (error) {
        if (!/wrong last sequence/i.test(String((error as Error).message))) {
          throw new LogUnavailableError("code store unavailable", { cause: error });
        }
      }
    }
    throw new LogUnavailableError("code store is too busy");
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
