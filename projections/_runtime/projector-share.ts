import type { Logger } from "pino";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";

/** How often an instance looks at who else is running. */
const REFRESH_MS = 2_000;

const shareRow = z.object({ projection: z.string(), partitions: z.number(), instances: z.number() });

/** What a runner holding a partition lets the share do: give the partition up to another instance. */
export type Holder = { yieldPartition: () => void };

/**
 * Shares the partitions of each read model fairly between the projector instances running it.
 * Every instance reads, every two seconds, how many instances are alive (projector_instances joined
 * with the live backends) and how many partitions each read model has: its share is
 * ceil(partitions / instances). Above it, it hands partitions back (their runners finish the batch
 * in flight, release the lock and wait before trying again); at it, it takes no more. A dead
 * instance's locks go with its connection, and the others take its partitions at their next look.
 * Locks and checkpoints, not the share, keep a fact from being applied twice: the share only
 * decides who tries.
 */
export class ProjectorShare {
  #targets = new Map<string, number>();
  #holders = new Map<string, Set<Holder>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: DatabasePool,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.#refresh();
    this.#timer = setInterval(() => void this.#refresh(), REFRESH_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Whether this instance should try to take one more partition of `projection`. */
  mayTake(projection: string): boolean {
    const target = this.#targets.get(projection);
    return target === undefined || this.#held(projection) < target;
  }

  took(projection: string, holder: Holder): void {
    let holders = this.#holders.get(projection);
    if (!holders) this.#holders.set(projection, (holders = new Set()));
    holders.add(holder);
  }

  released(projection: string, holder: Holder): void {
    this.#holders.get(projection)?.delete(holder);
  }

  #held(projection: string): number {
    return this.#holders.get(projection)?.size ?? 0;
  }

  async #refresh(): Promise<void> {
    try {
      const rows = await this.pool.any(sql.type(shareRow)`
        with live as (
          select i.projections from projector_instances i
            join pg_stat_activity a on a.pid = i.pid and a.backend_start = i.backend_start
        )
        select c.projection, max(c.partitions)::int as partitions,
               (select count(*) from live where c.projection = any(live.projections))::int as instances
          from projection_checkpoints c
          join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
         group by c.projection`);
      for (const row of rows) {
        const target = Math.ceil(row.partitions / Math.max(1, row.instances));
        this.#targets.set(row.projection, target);
        const excess = [...(this.#holders.get(row.projection) ?? [])].slice(target);
        if (excess.length > 0) this.logger.info({ projection: row.projection, instances: row.instances, keep: target, handing_back: excess.length }, "handing partitions to other projector instances");
        for (const holder of excess) holder.yieldPartition();
      }
    } catch (error) {
      this.logger.warn({ err: error }, "could not read the projector instances; keeping the current share");
    }
  }
}
