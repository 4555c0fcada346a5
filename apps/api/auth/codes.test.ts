import { describe, expect, it } from "vitest";
import { DomainError } from "../../../domain/shared/errors.ts";
import { CodeRecordConflictError, type CodeStore, type StoredCodeRecord } from "../../../streams/code-store.ts";
import { LogUnavailableError } from "../../../streams/errors.ts";
import { MAX_FAILED_ATTEMPTS, SignInCodes } from "./codes.ts";

/** An in-memory code store with KV's compare-and-set rules; `interfere` lets a test play another instance. */
class MemoryCodeStore implements CodeStore {
  readonly records = new Map<string, StoredCodeRecord>();
  #revision = 0;
  /** Called before each write; may write the record itself, as another instance would. */
  interfere: (email: string) => void = () => undefined;

  async get(email: string) {
    await Promise.resolve();
    return this.records.get(email) ?? null;
  }

  async create(email: string, value: string) {
    await Promise.resolve();
    this.interfere(email);
    if (this.records.has(email)) throw new CodeRecordConflictError("exists");
    this.records.set(email, { value, revision: ++this.#revision });
  }

  async update(email: string, value: string, revision: number) {
    await Promise.resolve();
    this.interfere(email);
    if (this.records.get(email)?.revision !== revision) throw new CodeRecordConflictError("changed");
    this.records.set(email, { value, revision: ++this.#revision });
  }

  /** Rewrites the record unchanged under a new revision. */
  bump(email: string) {
    const current = this.records.get(email);
    if (current) this.records.set(email, { value: current.value, revision: ++this.#revision });
  }
}

const noPause = async () => undefined;
const codeOf = (error: unknown) => (error instanceof DomainError ? error.code : error);
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("SignInCodes", () => {
  it("answers parallel guesses for one email in the order they came: ten wrong codes, then rate limits", async () => {
    const store = new MemoryCodeStore();
    const codes = new SignInCodes(store, "secret", Date.now, noPause);
    const code = await codes.issue("a@example.test");
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => codes.verify("a@example.test", wrongCode(code), true)));
    const answers = outcomes.map((outcome) => (outcome.status === "rejected" ? codeOf(outcome.reason) : "accepted"));
    expect(answers).toEqual([...Array(MAX_FAILED_ATTEMPTS).fill("unauthorized"), ...Array(40 - MAX_FAILED_ATTEMPTS).fill("rate_limited")]);
    // The right code no longer works either: the guard voids every code of the email.
    await expect(codes.verify("a@example.test", code, true)).rejects.toMatchObject({ code: "rate_limited" });
  });

  it("keeps one email's lock from touching another email", async () => {
    const store = new MemoryCodeStore();
    const codes = new SignInCodes(store, "secret", Date.now, noPause);
    const [first, second] = await Promise.all([codes.issue("a@example.test"), codes.issue("b@example.test")]);
    await Promise.allSettled(Array.from({ length: MAX_FAILED_ATTEMPTS + 1 }, () => codes.verify("a@example.test", wrongCode(first), true)));
    await expect(codes.verify("b@example.test", second, true)).resolves.toBeUndefined();
  });

  it("retries a compare-and-set another instance won, and succeeds", async () => {
    const store = new MemoryCodeStore();
    const pauses: number[] = [];
    const codes = new SignInCodes(store, "secret", Date.now, async (ms) => void pauses.push(ms));
    const code = await codes.issue("a@example.test");
    let interferences = 3;
    store.interfere = (email) => {
      if (interferences-- > 0) store.bump(email);
    };
    await codes.verify("a@example.test", code, true);
    expect(pauses).toHaveLength(3);
    for (const pause of pauses) expect(pause).toBeLessThanOrEqual(200);
    store.interfere = () => undefined;
    await expect(codes.verify("a@example.test", code, true)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("answers a rate limit, never an outage, when other instances keep winning", async () => {
    const store = new MemoryCodeStore();
    const codes = new SignInCodes(store, "secret", Date.now, noPause);
    const code = await codes.issue("a@example.test");
    store.interfere = (email) => store.bump(email);
    const refused = await codes.verify("a@example.test", code, true).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "rate_limited", message: "too many attempts for this email; retry shortly" });
  });

  it("passes an unreachable store on as unavailable", async () => {
    const store = new MemoryCodeStore();
    store.get = async () => {
      throw new LogUnavailableError("code store unavailable");
    };
    const codes = new SignInCodes(store, "secret", Date.now, noPause);
    await expect(codes.verify("a@example.test", "123456", true)).rejects.toBeInstanceOf(LogUnavailableError);
  });
});
