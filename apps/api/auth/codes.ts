import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { rateLimited, unauthorized } from "../../../domain/shared/errors.ts";
import { CodeRecordConflictError, type CodeStore } from "../../../streams/code-store.ts";
import { OneAtATime } from "../../commands/one-at-a-time.ts";

const SENDS_PER_HOUR = 5;
const HOUR_MS = 60 * 60 * 1000;
const CODE_TTL_MS = 10 * 60 * 1000;
/** After this many wrong guesses every code of the email is refused (brute-force guard). */
export const MAX_FAILED_ATTEMPTS = 10;
/** Compare-and-set rounds one change may take while other instances write the same email's record. */
const WRITE_ROUNDS = 8;
/** The longest pause between two rounds; each pause is random up to a doubling bound, so racers spread out. */
const MAX_BACKOFF_MS = 200;
const FIRST_BACKOFF_MS = 10;

type CodeRecord = {
  sends: number[];
  codes: { hash: string; expiresAt: number; used: boolean }[];
  failedAttempts: number;
};

const empty = (): CodeRecord => ({ sends: [], codes: [], failedAttempts: 0 });

/**
 * Sign-in codes are transient state, not domain facts: they live hashed in the code store (one
 * record per email, 1-hour TTL). Within this instance the changes to one email's record take
 * turns, in the order they were asked for, so a burst of guesses is answered one by one instead
 * of racing each other; between instances every change is a compare-and-set on the record's
 * revision, so concurrent sends and verifies cannot lose an update or use a code twice.
 */
export class SignInCodes {
  /** Each email's changes, one at a time within this instance. */
  readonly #turns = new OneAtATime();

  constructor(
    private readonly store: CodeStore,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
    private readonly pause: (ms: number) => Promise<unknown> = sleep,
  ) {}

  /**
   * Issues a new code.
   * @throws DomainError rate_limited after 5 codes for this email within an hour, or when other
   * instances keep changing the email's record; LogUnavailableError when NATS cannot be reached
   */
  async issue(email: string): Promise<string> {
    const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
    await this.#change(email, (record) => {
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
   * @throws DomainError unauthorized when the code is wrong, expired or already used; rate_limited
   * once the email has had 10 wrong guesses, or when other instances keep changing its record;
   * LogUnavailableError when NATS cannot be reached
   */
  async verify(email: string, code: string, consume: boolean): Promise<void> {
    const hash = this.#hash(email, code);
    let outcome = "wrong" as "matched" | "wrong" | "locked";
    await this.#change(email, (record) => {
      const now = this.now();
      if (record.failedAttempts >= MAX_FAILED_ATTEMPTS) {
        // Nothing to write: a locked email is refused without touching its record.
        outcome = "locked";
        return null;
      }
      const entry = record.codes.find((candidate) => !candidate.used && candidate.expiresAt > now && sameHash(candidate.hash, hash));
      if (!entry) {
        outcome = "wrong";
        record.failedAttempts += 1;
        return record;
      }
      outcome = "matched";
      if (!consume) return null;
      entry.used = true;
      record.failedAttempts = 0;
      return record;
    });
    if (outcome === "locked") throw rateLimited("too many wrong codes for this email; try again later");
    if (outcome === "wrong") throw unauthorized("invalid or expired code");
  }

  #hash(email: string, code: string): string {
    return createHmac("sha256", this.secret).update(`${email}\n${code}`).digest("hex");
  }

  /** Runs `change` on the email's record after every change queued before it here has settled. */
  #change(email: string, change: (record: CodeRecord) => CodeRecord | null): Promise<void> {
    return this.#turns.run(email, () => this.#compareAndSet(email, change));
  }

  /**
   * Reads the record, applies `change` and writes it back if nobody wrote in between; otherwise
   * pauses a short random while and starts over. `change` returns null when there is nothing to write.
   */
  async #compareAndSet(email: string, change: (record: CodeRecord) => CodeRecord | null): Promise<void> {
    for (let round = 1; ; round += 1) {
      const stored = await this.store.get(email);
      const next = change(stored ? (JSON.parse(stored.value) as CodeRecord) : empty());
      if (next === null) return;
      try {
        if (stored) await this.store.update(email, JSON.stringify(next), stored.revision);
        else await this.store.create(email, JSON.stringify(next));
        return;
      } catch (error) {
        if (!(error instanceof CodeRecordConflictError)) throw error;
        // Contention is the callers' doing, not an outage: they are asked to slow down, never told the service is down.
        if (round >= WRITE_ROUNDS) throw rateLimited("too many attempts for this email; retry shortly");
        await this.pause(Math.random() * Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** round));
      }
    }
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
