/**
 * The two streams of the event log by their wire-level names (the namespace is prefixed to them):
 * DOMAIN holds control facts, INGEST accepted ingest and import batches and identity facts.
 */
export type StreamKind = "DOMAIN" | "INGEST";

export const STREAM_KINDS: readonly StreamKind[] = ["DOMAIN", "INGEST"];
