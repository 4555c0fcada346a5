import type { DatabaseTransactionConnection } from "slonik";
import type { StreamKind } from "../../domain/shared/stream-kind.ts";

/** One message of a stream as a projector sees it. */
export type Fact = { seq: number; subject: string; data: Uint8Array };

/**
 * A read model: its tables (numbered SQL migrations, applied inside one schema per generation)
 * and how facts change them. `apply` runs inside the runtime's transaction, which also moves the
 * checkpoint, so it must do every read and write through `tx`.
 */
export type Projection = {
  name: string;
  stream: StreamKind;
  migrationsDir: URL;
  /** Most facts applied in one transaction (default 2,000); lower it for facts that carry many rows. */
  maxBatch?: number;
  apply: (tx: DatabaseTransactionConnection, facts: Fact[]) => Promise<void>;
  /**
   * What the read model records of a fact it could not apply, which the runtime parked: a read
   * model that versions aggregates must still count the fact, or every later command on that
   * aggregate would expect a version the log has already moved past.
   */
  parked?: (tx: DatabaseTransactionConnection, fact: Fact) => Promise<void>;
};

export function generationSchema(projection: string, generation: number): string {
  return `rm_${projection}_g${generation}`;
}
