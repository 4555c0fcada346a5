/**
 * Every stream, subject and KV bucket carries the NAMESPACE, so several instances and parallel
 * test runs share one NATS server without seeing each other.
 */
export type StreamKind = "DOMAIN" | "INGEST";

export type Names = {
  namespace: string;
  stream: (kind: StreamKind) => string;
  subjectRoot: (kind: StreamKind) => string;
  /** `<ns>.d.<aggregate>.<id>`: one subject per aggregate instance, as optimistic concurrency needs. */
  aggregateSubject: (aggregate: string, id: string) => string;
  /** `<ns>.i.<projectId>.<appId>`: one message per accepted ingest or import batch. */
  ingestSubject: (projectId: string, appId: string) => string;
  bucket: (name: string) => string;
};

const TOKEN = /^[A-Za-z0-9_-]+$/;

function token(value: string): string {
  if (!TOKEN.test(value)) throw new Error(`not a safe subject token: ${JSON.stringify(value)}`);
  return value;
}

export function namesFor(namespace: string): Names {
  const ns = token(namespace);
  const roots: Record<StreamKind, string> = { DOMAIN: `${ns}.d`, INGEST: `${ns}.i` };
  return {
    namespace: ns,
    stream: (kind) => `${ns}_${kind}`,
    subjectRoot: (kind) => roots[kind],
    aggregateSubject: (aggregate, id) => `${roots.DOMAIN}.${token(aggregate)}.${token(id)}`,
    ingestSubject: (projectId, appId) => `${roots.INGEST}.${token(projectId)}.${token(appId)}`,
    bucket: (name) => `${ns}_${token(name)}`,
  };
}
