import type { DatabasePool } from "slonik";
import type { DomainEnvelope } from "../../../domain/events.ts";
import type { DeliveryChannel } from "../../../domain/notifications/rules.ts";
import type { NotificationType } from "../../../domain/notifications/types.ts";

/** One notification a source fact causes for one recipient; the dispatcher gives it its id and time. */
export type NoticeDraft = {
  userId: string;
  type: NotificationType;
  title: string;
  body: string;
  /** A dashboard page under PUBLIC_BASE_URL, or null. */
  link: string | null;
  teamId: string | null;
  data: Record<string, unknown>;
  /** Channels besides the inbox. */
  channels: DeliveryChannel[];
};

export type SourceDeps = { pool: DatabasePool; publicBaseUrl: string };

/**
 * A kind of fact that notifies people: which DOMAIN subjects carry it, and the notices one message
 * causes (a whole message, so a source may fold the facts of one decision, such as one detection
 * window's issues, into one notice). A source only reads read models and builds drafts; the dispatcher (dispatcher.ts) owns
 * ids, idempotency, the inbox and delivery, so a new type is one small file in sources/.
 * A throw (a read model not caught up yet) redelivers the message later.
 */
export type NotificationSource = {
  /** Names the source's durable consumer: `notify_<name>`. */
  name: string;
  /** DOMAIN subject filter below the stream root, e.g. `job.>`. */
  filter: string;
  /** The event types `notices` reads; the others are left out of its envelope undecoded. */
  wanted: (type: string) => boolean;
  notices: (envelope: DomainEnvelope, deps: SourceDeps) => Promise<NoticeDraft[]>;
};
