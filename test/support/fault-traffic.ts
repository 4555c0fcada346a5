import type pg from "pg";
import { expect } from "vitest";
import type { Client } from "./http.ts";
import { latestCode } from "./outbox.ts";
import { waitUntil } from "./processes.ts";
import type { TestService } from "./service.ts";
import { streamHead } from "./streams.ts";
import { uniqueEmail, type SignedIn } from "./users.ts";

/**
 * Write traffic for fault tests: lanes of sign-ups, renames (PATCH /v1/auth/me) and team creations
 * run while a dependency is stopped and restarted. Every request has a hard deadline and its
 * outcome is recorded, together with what each acknowledged write should have left in the read
 * models, so the test can check that nothing acknowledged was lost.
 */

export type Outcome = { what: string; status: number; body: any; ms: number; startedAt: number; endedAt: number };

export const ok = (outcome: Outcome) => outcome.status >= 200 && outcome.status < 300;

/** The answer the service owes while a dependency is down: 503 with exactly `{error}`. */
export const isUnavailable = (outcome: Outcome) =>
  outcome.status === 503 && typeof outcome.body?.error === "string" && Object.keys(outcome.body).length === 1;

export class FaultTraffic {
  readonly outcomes: Outcome[] = [];
  /** Per writer, the names it asked for in order and whether each was acknowledged. */
  readonly renames = new Map<string, { name: string; acknowledged: boolean }[]>();
  readonly createdTeams: { id: string; owner: string }[] = [];
  readonly signedUp: { userId: string; teamId: string }[] = [];
  #stopped = false;
  #lanes: Promise<void>[] = [];

  constructor(
    private readonly service: TestService,
    private readonly writers: SignedIn[],
    readonly requestBoundMs: number,
  ) {
    for (const writer of writers) this.renames.set(writer.userId, []);
  }

  /** One request with a hard deadline: still open after the bound, it is recorded as status 0 ("hung"). */
  async call(what: string, method: string, path: string, body?: unknown, token?: string): Promise<Outcome> {
    const startedAt = Date.now();
    let outcome: Outcome;
    try {
      const response = await fetch(`${this.service.baseUrl}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.requestBoundMs),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // kept as text for the failure message
      }
      outcome = { what, status: response.status, body: parsed, ms: Date.now() - startedAt, startedAt, endedAt: Date.now() };
    } catch (error) {
      outcome = { what, status: 0, body: String(error), ms: Date.now() - startedAt, startedAt, endedAt: Date.now() };
    }
    this.outcomes.push(outcome);
    return outcome;
  }

  start(): void {
    this.#lanes = this.writers.map((writer, index) => this.#lane(writer, index));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#lanes);
  }

  acknowledgedSince(at: number): number {
    return this.outcomes.filter((outcome) => ok(outcome) && outcome.startedAt > at).length;
  }

  /** Requests that ended in neither a 2xx nor a 503 {error} (a 500, a 4xx, a hang). */
  unexpected(): Outcome[] {
    return this.outcomes.filter((outcome) => !ok(outcome) && !isUnavailable(outcome));
  }

  slowestMs(): number {
    return Math.max(0, ...this.outcomes.map((outcome) => outcome.ms));
  }

  summary(): string {
    return (
      `${this.outcomes.length} requests, ${this.outcomes.filter(ok).length} 2xx, ${this.outcomes.filter(isUnavailable).length} 503, ` +
      `slowest ${this.slowestMs()} ms; ${this.createdTeams.length} teams and ${this.signedUp.length} sign-ups acknowledged`
    );
  }

  async #signUp(): Promise<void> {
    const email = uniqueEmail("fault");
    if (!ok(await this.call("POST /v1/auth/send-code", "POST", "/v1/auth/send-code", { email }))) return;
    const code = await latestCode(this.service.outbox, email);
    const verified = await this.call("POST /v1/auth/verify-code", "POST", "/v1/auth/verify-code", { email, code });
    if (ok(verified)) this.signedUp.push({ userId: verified.body.user.id, teamId: verified.body.teams[0]?.id });
  }

  async #lane(writer: SignedIn, index: number): Promise<void> {
    for (let round = 0; !this.#stopped; round += 1) {
      const name = `w${index} r${round}`;
      const renamed = await this.call("PATCH /v1/auth/me", "PATCH", "/v1/auth/me", { name }, writer.token);
      this.renames.get(writer.userId)!.push({ name, acknowledged: ok(renamed) });
      if (round % 2 === 0) {
        const slug = `f-${index}-${round}-${writer.userId.slice(0, 6)}`;
        const team = await this.call("POST /v1/teams", "POST", "/v1/teams", { name: `Fault ${index}.${round}`, slug }, writer.token);
        if (ok(team)) this.createdTeams.push({ id: team.body.id, owner: writer.userId });
      }
      if (round % 3 === 0) await this.#signUp();
      // While a dependency is down requests fail fast once they fail; do not spin.
      if (!ok(renamed)) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Checks the read models hold every acknowledged write: each acknowledged rename is in the audit
   * log and the user's name is the last acknowledged one (or a later one answered 503 whose fact
   * still landed); each acknowledged team exists with its creator as owner; each acknowledged
   * sign-up has its user in its team. Returns the problems found (empty when none).
   */
  async missingWrites(admin: pg.Client): Promise<string[]> {
    const problems: string[] = [];
    for (const [userId, asked] of this.renames) {
      const { rows } = await admin.query<{ after: string }>(
        "select changes -> 'name' ->> 'after' as after from audit_logs where resource_type = 'user' and resource_id = $1",
        [userId],
      );
      const audited = new Set(rows.map((row) => row.after));
      for (const entry of asked) if (entry.acknowledged && !audited.has(entry.name)) problems.push(`rename of ${userId} to ${entry.name} not in the audit log`);
      const last = asked.map((entry) => entry.acknowledged).lastIndexOf(true);
      const candidates = asked.slice(Math.max(0, last)).map((entry) => entry.name);
      if (last === -1) candidates.push(this.writers.find((writer) => writer.userId === userId)!.body.user.name);
      const { rows: user } = await admin.query<{ name: string }>("select name from users where id = $1", [userId]);
      if (!candidates.includes(user[0]?.name ?? "")) problems.push(`user ${userId} is named ${user[0]?.name}, expected one of ${candidates.join(", ")}`);
    }
    const { rows: teams } = await admin.query<{ id: string; owner: string }>(
      `select t.id, m.user_id as owner from teams t join team_members m on m.team_id = t.id and m.role = 'owner'
        where t.id = any($1::uuid[]) and t.deleted_at is null`,
      [this.createdTeams.map((team) => team.id)],
    );
    const found = new Set(teams.map((row) => `${row.id}/${row.owner}`));
    for (const team of this.createdTeams) if (!found.has(`${team.id}/${team.owner}`)) problems.push(`team ${team.id} of ${team.owner} missing`);
    const { rows: members } = await admin.query<{ user_id: string; team_id: string }>(
      "select m.user_id, m.team_id from team_members m join users u on u.id = m.user_id where m.user_id = any($1::uuid[])",
      [this.signedUp.map((user) => user.userId)],
    );
    const memberships = new Set(members.map((row) => `${row.user_id}/${row.team_id}`));
    for (const user of this.signedUp) if (!memberships.has(`${user.userId}/${user.teamId}`)) problems.push(`signed-up user ${user.userId} missing from team ${user.teamId}`);
    return problems;
  }
}

/** Waits until both DOMAIN read models have applied everything on the stream; returns the head. */
export async function projectorsCaughtUp(service: TestService, admin: pg.Client, timeoutMs = 20_000): Promise<number> {
  return waitUntil(
    "the projectors to reach the head of the DOMAIN stream",
    async () => {
      const head = await streamHead(service.log);
      const { rows } = await admin.query<{ last_seq: string }>(`
        select c.last_seq from projection_checkpoints c
          join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
         where c.stream = 'DOMAIN'`);
      return rows.length >= 2 && rows.every((row) => Number(row.last_seq) === head) ? head : undefined;
    },
    timeoutMs,
    100,
  );
}

/** Polls /readyz until it answers 200 again after an outage. */
export async function readyAgain(http: Client, timeoutMs = 20_000): Promise<void> {
  await waitUntil("/readyz to answer 200 again", async () => (await http.get("/readyz")).status === 200, timeoutMs, 100);
}

export type Outage = { downAt: number; restartedAt: number };

/**
 * Runs `traffic` through an outage: once 40 writes were acknowledged, `takeDown` stops the
 * dependency; after `outageMs` `bringBack` restarts it, and writing goes on until 30 writes started
 * after the restart were acknowledged. Stops the traffic and returns when the outage began and ended.
 */
export async function writeThroughOutage(traffic: FaultTraffic, takeDown: () => Promise<void>, bringBack: () => Promise<void>, outageMs: number): Promise<Outage> {
  traffic.start();
  await waitUntil("writes before the crash", () => traffic.acknowledgedSince(0) >= 40, 20_000, 10);
  const downAt = Date.now();
  await takeDown();
  await new Promise((resolve) => setTimeout(resolve, outageMs));
  await bringBack();
  const restartedAt = Date.now();
  await waitUntil("writes after the restart", () => traffic.acknowledgedSince(restartedAt) >= 30, 40_000, 50);
  await traffic.stop();
  return { downAt, restartedAt };
}

/** Every request ended within the bound in a 2xx or a 503 {error} (never a 500, never hung), and some were in flight during the outage. */
export function expectOnlyOkOrUnavailable(traffic: FaultTraffic, outage: Outage): void {
  const unexpected = traffic.unexpected();
  expect(unexpected, JSON.stringify(unexpected.slice(0, 5), null, 1)).toEqual([]);
  expect(traffic.slowestMs()).toBeLessThan(traffic.requestBoundMs);
  expect(traffic.outcomes.some((outcome) => outcome.startedAt < outage.restartedAt && outcome.endedAt > outage.downAt)).toBe(true);
}
