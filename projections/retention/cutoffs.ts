import type { CommonQueryMethods } from "slonik";
import { expiresBefore, type Retention, type RetentionKind } from "../../domain/projects/retention.ts";
import { retentionOfProjects } from "../directory/retention-queries.ts";

/**
 * How long a project's retention is trusted before it is read again. A changed retention reaches
 * the projectors within this long; the cleanup job enforces it anyway.
 */
const TTL_MS = 30_000;

/** Runs a read on the projector's transaction connection, when that connection is free for it. */
export type TransactionRead = <T>(work: (db: CommonQueryMethods) => Promise<T>) => Promise<T>;

type Known = { retention: Retention | null; readAt: number };

/**
 * Where a projector stops writing old rows: per project, `now` minus the project's retention of
 * one kind. The retention comes from the directory's `projects` (the public view of its active
 * generation), read through the projector's own transaction and kept for a short while per
 * process, so the write path costs a round trip only when a project is first seen or its entry
 * is stale. One instance per read model, shared by its batches: entries are a few numbers per
 * project, so the map is not bounded beyond the number of projects.
 *
 * A project the directory does not hold (a directory being rebuilt behind the INGEST read models)
 * keeps every row: skipping is only the projector's way of not bringing expired rows back, and the
 * cleanup job (cleanup.ts) decides what is deleted.
 */
export class RetentionCutoffs {
  readonly #known = new Map<string, Known>();

  constructor(
    readonly kind: RetentionKind,
    private readonly ttlMs = TTL_MS,
  ) {}

  /** The cutoffs of one projector batch, all taken at `nowMs` (the projector's clock), read through `read`. */
  forBatch(nowMs: number, read: TransactionRead): BatchCutoffs {
    return new BatchCutoffs(this.kind, nowMs, (projectId) => this.#retentionOf(projectId, nowMs, read));
  }

  /** The cached retention of `projectId` (null: not in the directory), read through `read` when missing or stale. */
  async #retentionOf(projectId: string, nowMs: number, read: TransactionRead): Promise<Retention | null> {
    const known = this.#known.get(projectId);
    if (known && nowMs - known.readAt < this.ttlMs) return known.retention;
    const [found] = await read((db) => retentionOfProjects(db, [projectId]));
    this.#known.set(projectId, { retention: found?.retention ?? null, readAt: nowMs });
    return found?.retention ?? null;
  }
}

/**
 * The cutoffs of one batch: the earliest timestamp kept per project, as ISO 8601 in UTC with
 * milliseconds. Event timestamps are normalized to that form by the API (domain/ingest), so an
 * event is expired exactly when its timestamp string sorts before the cutoff: no date is parsed per
 * event on the write path.
 */
export class BatchCutoffs {
  readonly #since = new Map<string, string | null>();

  constructor(
    private readonly kind: RetentionKind,
    private readonly nowMs: number,
    private readonly retentionOf: (projectId: string) => Promise<Retention | null>,
  ) {}

  /** The project's cutoff, null when it keeps everything; read (and remembered for the batch) as needed. */
  async resolve(projectId: string): Promise<string | null> {
    const remembered = this.#since.get(projectId);
    if (remembered !== undefined) return remembered;
    const retention = await this.retentionOf(projectId);
    const since = retention === null ? null : expiresBefore(retention[this.kind], this.nowMs).toISOString();
    this.#since.set(projectId, since);
    return since;
  }

  /** The cutoff `resolve` gave for the project, null when it keeps everything or was not resolved. */
  since(projectId: string): string | null {
    return this.#since.get(projectId) ?? null;
  }
}

/** Whether an event of `timestamp` (ISO 8601, UTC, milliseconds) is past a cutoff. */
export const isExpired = (timestamp: string, since: string | null): boolean => since !== null && timestamp < since;
