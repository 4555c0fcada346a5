import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";

/**
 * Whether a KV write failed because the key's revision is not the one the write named: a `create`
 * of a key that exists, or an `update` that lost a race. Every other failure means NATS itself.
 */
export function isRevisionConflict(error: unknown): boolean {
  if (error instanceof JetStreamApiError) {
    return error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
  }
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}
