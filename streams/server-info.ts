import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";

/** The largest message payload the connected server accepts, in bytes; undefined until it has told us. Throws nothing. */
export function maxPayload(log: Log): number | undefined {
  return log[NATS].nc.info?.max_payload;
}
