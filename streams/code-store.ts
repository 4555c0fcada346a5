import { createHash } from "node:crypto";
import type { Log } from "./connection.ts";
import { LogUnavailableError } from "./errors.ts";
import { isRevisionConflict } from "./kv-conflict.ts";

/** Another writer changed the record since it was read: read it again and decide again. */
export class CodeRecordConflictError extends Error {
  override name = "CodeRecordConflictError";
}

/** A record as read, with the revision an update must name. */
export type StoredCodeRecord = { value: string; revision: number };

/**
 * The sign-in code records of the `auth_codes` bucket, one per email (1-hour TTL). Every write
 * names what it expects to replace, so two writers can never both win.
 */
export type CodeStore = {
  /** The email's record, or null when it has none. @throws LogUnavailableError when NATS cannot be reached */
  get(email: string): Promise<StoredCodeRecord | null>;
  /** Stores the first record of an email. @throws CodeRecordConflictError when one exists by now, LogUnavailableError when NATS cannot be reached */
  create(email: string, value: string): Promise<void>;
  /** Replaces the record read at `revision`. @throws CodeRecordConflictError when it changed since, LogUnavailableError when NATS cannot be reached */
  update(email: string, value: string, revision: number): Promise<void>;
};

/** KV keys allow only a small alphabet, which emails do not fit: the key is a hash of the email. */
const keyOf = (email: string) => `code.${createHash("sha256").update(email).digest("hex").slice(0, 40)}`;

/** The code store on `log`'s namespace. */
export function codeStore(log: Log): CodeStore {
  const bucket = async () => {
    try {
      return await log.bucket("auth_codes");
    } catch (error) {
      throw new LogUnavailableError("code store unavailable", { cause: error });
    }
  };
  const write = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (error) {
      if (isRevisionConflict(error)) throw new CodeRecordConflictError("the code record changed since it was read");
      throw new LogUnavailableError("code store unavailable", { cause: error });
    }
  };
  return {
    get: async (email) => {
      const kv = await bucket();
      const entry = await kv.get(keyOf(email)).catch((error) => {
        throw new LogUnavailableError("code store unavailable", { cause: error });
      });
      // A deleted or purged key reads as absent; `create` writes over its marker.
      return entry && entry.operation === "PUT" ? { value: entry.string(), revision: entry.revision } : null;
    },
    create: async (email, value) => {
      const kv = await bucket();
      await write(() => kv.create(keyOf(email), value));
    },
    update: async (email, value, revision) => {
      const kv = await bucket();
      await write(() => kv.update(keyOf(email), value, revision));
    },
  };
}
