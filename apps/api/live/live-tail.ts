import type { ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { EventFilter } from "../../../projections/events/queries.ts";
import type { VisibleApp } from "../../../projections/events/visible-apps.ts";
import { followNewIngest, type LiveIngest, type LiveSubject } from "../../../streams/live-ingest.ts";
import type { Log } from "../../../streams/connection.ts";
import { liveEvent, matchesFilter } from "./live-event.ts";

/** A comment line every so often keeps proxies and browsers from closing an idle stream. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * Unsent bytes a slow reader may leave behind before its stream is ended: the process never
 * buffers without bound for one client, and the browser reconnects.
 */
const MAX_BUFFERED_BYTES = 1024 * 1024;

type TailRequest = {
  log: Log;
  logger: FastifyBaseLogger;
  filter: EventFilter;
  /** The project and app the query names, for the narrowest subject. */
  scope: { projectId?: string; appId?: string };
  /** Reads the caller's visible apps again; asked at every keep-alive, so new apps appear and lost access ends. */
  visibleApps: () => Promise<readonly VisibleApp[]>;
};

function subjectFor(scope: TailRequest["scope"], apps: readonly VisibleApp[]): LiveSubject {
  if (scope.appId !== undefined) {
    const app = apps.find((candidate) => candidate.id === scope.appId);
    if (app) return { projectId: app.project_id, appId: app.id };
  }
  if (scope.projectId !== undefined) return { projectId: scope.projectId };
  return { everyProject: true };
}

/**
 * One open live tail: an ordered consumer on the INGEST stream feeding one Server-Sent Events
 * response. `end()` stops the consumer and closes the response; it runs when the client leaves,
 * the consumer fails, the reader falls too far behind, or the service shuts down.
 */
export class LiveTail {
  #feed: LiveIngest | undefined;
  #apps = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #ended = false;

  private constructor(
    private readonly request: TailRequest,
    private readonly response: ServerResponse,
  ) {}

  /**
   * Opens the consumer and starts the response; resolves when the tail has ended.
   * `opened` is called once the consumer exists and before any byte is written, so the caller
   * can still answer with an error status when opening fails.
   * @throws the NATS or database error when the consumer cannot be opened (nothing was written)
   */
  static async run(request: TailRequest, response: ServerResponse, opened: (tail: LiveTail) => void): Promise<void> {
    const tail = new LiveTail(request, response);
    const apps = await request.visibleApps();
    tail.#apps = new Set(apps.map((app) => app.id));
    tail.#feed = await followNewIngest(request.log, subjectFor(request.scope, apps), (appId) => tail.#apps.has(appId));
    opened(tail);
    await tail.#pump();
  }

  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#timer);
    await this.#feed?.stop();
    if (!this.response.writableEnded) this.response.end();
  }

  async #pump(): Promise<void> {
    // Ended as it opened (the service began to shut down): no keep-alive may outlive it.
    if (this.#ended) return;
    const response = this.response;
    response.on("close", () => void this.end());
    this.#timer = setInterval(() => void this.#keepAlive(), KEEP_ALIVE_MS);
    // A client that left while the consumer opened gets no answer at all.
    if (response.destroyed) return this.end();
    // The first line tells EventSource to wait 3 s before reconnecting after a drop.
    response.write("retry: 3000\n: live\n\n");
    try {
      for await (const batch of this.#feed!.batches) {
        if (this.#ended) break;
        let chunk = "";
        for (const event of batch.events) if (matchesFilter(event, this.request.filter)) chunk += `data: ${JSON.stringify(liveEvent(batch, event))}\n\n`;
        if (chunk !== "") this.#send(chunk);
      }
    } catch (error) {
      if (!this.#ended) this.request.logger.warn({ err: error }, "a live tail's consumer failed; ending the stream");
    }
    await this.end();
  }

  #send(chunk: string): void {
    if (this.#ended) return;
    this.response.write(chunk);
    if (this.response.writableLength > MAX_BUFFERED_BYTES) {
      this.request.logger.info("a live tail's reader fell behind; ending the stream");
      void this.end();
    }
  }

  /** Re-reads the visible apps, then writes the comment: a client that saw it knows the apps are current. */
  async #keepAlive(): Promise<void> {
    try {
      this.#apps = new Set((await this.request.visibleApps()).map((app) => app.id));
    } catch (error) {
      // The last known apps stay in force until the database answers again.
      this.request.logger.warn({ err: error }, "a live tail could not re-read its visible apps");
    }
    this.#send(": keep-alive\n\n");
  }
}
