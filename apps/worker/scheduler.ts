import { Cron } from "croner";
import type { Logger } from "pino";

export type ScheduledJob = { name: string; pattern: string; run: () => Promise<void> };

/**
 * Runs scheduled jobs with croner (UTC patterns). A run never overlaps the previous one of the
 * same job, and a failing run is logged without stopping the schedule.
 */
export class Scheduler {
  #crons: Cron[] = [];
  #running = new Set<Promise<void>>();

  constructor(
    private readonly jobs: ScheduledJob[],
    private readonly logger: Logger,
  ) {}

  start(): void {
    for (const job of this.jobs) {
      const log = this.logger.child({ component: "worker", job: job.name });
      this.#crons.push(
        new Cron(job.pattern, { timezone: "UTC", protect: true }, async () => {
          const run = job.run().catch((error) => log.error({ err: error }, "scheduled job failed"));
          this.#running.add(run);
          await run;
          this.#running.delete(run);
        }),
      );
    }
  }

  /** Stops the schedules and waits for runs in progress. */
  async stop(): Promise<void> {
    for (const cron of this.#crons) cron.stop();
    this.#crons = [];
    await Promise.all(this.#running);
  }
}
