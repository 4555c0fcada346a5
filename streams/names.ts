import { createHash } from "node:crypto";
import type { StreamKind } from "../domain/shared/stream-kind.ts";

/**
 * Every stream, subject and KV bucket carries the NAMESPACE, so several instances and parallel
 * test runs share one NATS server without seeing each other.
 */
export type Names = {
  namespace: string;
  stream: (kind: StreamKind) => string;
  subjectRoot: (kind: StreamKind) => string;
  /** `<ns>.d.<aggregate>.<id>`: one subject per aggregate instance, as optimistic concurrency needs. */
  aggregateSubject: (aggregate: string, id: string) => string;
  /** `<ns>.i.<projectId>.<appId>`: one message per accepted ingest or import batch. */
  ingestSubject: (projectId: string, appId: string) => string;
  /**
   * `<ns>.i.<projectId>.u.<hash>`: the identity facts of one app user (claims, properties) on the
   * INGEST stream, so every ingest read model sees them in order with the events they affect. One
   * subject per user gives each user its own optimistic-concurrency sequence; user ids are free
   * text, so the token is a hash of it.
   */
  identitySubject: (projectId: string, userId: string) => string;
  /**
   * `<ns>.i.<projectId>.*`: every event-batch subject of one project (`*` is one token: its apps),
   * and none of its identity subjects, which have two tokens after the project (`u.<hash>`).
   */
  projectBatches: (projectId: string) => string;
  bucket: (name: string) => string;
};

const TOKEN = /^[A-Za-z0-9_-]+$/;

function token(value: string): string {
  if (!TOKEN.test(value)) throw new Error(`not a safe subject token: ${JSON.stringify(value)}`);
  return value;
}

/** 128 bits of SHA-256: collisions are out of reach, and the subject stays short. */
const userToken = (userId: string): string => createHash("sha256").update(userId).digest("hex").slice(0, 32);

export function namesFor(namespace: string): Names {
  const ns = token(namespace);
  const roots: Record<StreamKind, string> = { DOMAIN: `${ns}.d`, INGEST: `${ns}.i` };
  return {
    namespace: ns,
    stream: (kind) => `${ns}_${kind}`,
    subjectRoot: (kind) => roots[kind],
    aggregateSubject: (aggregate, id) => `${roots.DOMAIN}.${token(aggregate)}.${token(id)}`,
    ingestSubject: (projectId, appId) => `${roots.INGEST}.${token(projectId)}.${token(appId)}`,
    identitySubject: (projectId, userId) => `${roots.INGEST}.${token(projectId)}.u.${userToken(userId)}`,
    projectBatches: (projectId) => `${roots.INGEST}.${token(projectId)}.*`,
    bucket: (name) => `${ns}_${token(name)}`,
  };
}
