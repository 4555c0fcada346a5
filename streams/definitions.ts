import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { StreamKind } from "../domain/shared/stream-kind.ts";
import type { Names } from "./names.ts";

const TWO_MINUTES = nanos(2 * 60 * 1000);

/**
 * DOMAIN holds every control fact forever (`discard: new`, so a full stream is a visible publish
 * error, never silently lost history). INGEST holds one message per accepted batch, with no age
 * limit either: the retention job purges each project's event batches once every read model has
 * expired them (streams/purge.ts), and keeps identity facts for ever.
 */
export function streamConfig(names: Names, kind: StreamKind, replicas: number): Partial<StreamConfig> {
  return {
    name: names.stream(kind),
    subjects: [`${names.subjectRoot(kind)}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    duplicate_window: TWO_MINUTES,
    max_msgs_per_subject: -1,
    allow_direct: true,
    num_replicas: replicas,
  };
}

export type BucketDefinition = { name: string; ttlMs: number; description: string };

export const BUCKETS: BucketDefinition[] = [
  { name: "reservations", ttlMs: 0, description: "unique names claimed before a fact is appended" },
  { name: "auth_codes", ttlMs: 60 * 60 * 1000, description: "hashed sign-in codes and send counts per email" },
  // No TTL: losing the session signing key would sign every user out (streams/shared-secret.ts).
  { name: "secrets", ttlMs: 0, description: "generated secrets every instance shares, such as the session signing key" },
];
