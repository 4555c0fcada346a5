import { rm } from "node:fs/promises";
import pino from "pino";
import pg from "pg";
import type { DatabasePool } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { openInfrastructure } from "../../apps/runtime.ts";
import type { DomainEvent } from "../../domain/events.ts";
import { newId } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import type { Log } from "../../streams/connection.ts";
import { cleanUp, spawnTsx, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { dropDatabase, serviceEnv, testConfig } from "../support/service.ts";
import { appendFacts, dropStreams, streamHead } from "../support/streams.ts";

/**
 * The projector runs in a child process (apps/projector/main.ts) over a large backlog of DOMAIN
 * facts written straight to the stream. It is SIGKILLed while a batch transaction is open (rows
 * written, checkpoint not yet committed), then started again. Every fact must end up applied
 * exactly once, in stream order, and undecodable messages must be parked without stopping it.
 */

const USERS = 800;
const RENAMES = 4;
const CONCURRENCY = 150;

let config: Config;
let log: Log;
let pool: DatabasePool;
let admin: pg.Client;
const projectors: OwnedProcess[] = [];

/** What the test appended: the audit rows each seq stands for, and the last seq of every subject. */
const auditRowsBySeq = new Map<number, number>();
const lastSeqBySubject = new Map<string, number>();
const finalNameByUser = new Map<string, string>();
const poisonSeqs: { seq: number; subject: string }[] = [];

beforeAll(async () => {
  config = await testConfig();
  // Creates the database, runs the migrations and the streams; no projector runs in this process.
  ({ log, pool } = await openInfrastructure(config, pino({ level: "silent" })));
  admin = new pg.Client({ connectionString: config.databaseUrl });
  await admin.connect();
});

afterAll(async () => {
  await cleanUp([
    () => Promise.all(projectors.map((child) => child.stop("SIGKILL"))),
    () => admin?.end().catch(() => undefined),
    async () => {
      if (!log) return;
      await dropStreams(log);
      await log.close();
    },
    () => pool?.end(),
    () => config && dropDatabase(config.databaseUrl).catch(() => undefined),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
  ]);
});

function startProjector(label: string): OwnedProcess {
  const url = new URL(config.databaseUrl);
  url.searchParams.set("application_name", label);
  const child = spawnTsx("apps/projector/main.ts", { ...serviceEnv(config), DATABASE_URL: url.toString() });
  projectors.push(child);
  return child;
}

const publish = (subject: string, events: DomainEvent[], actorId: string | null) => appendFacts(log, subject, events, { type: "user", id: actorId });

/** One user's history, appended in order: registered, default team with owner, then renames. */
async function appendUser(index: number): Promise<void> {
  const userId = newId();
  const teamId = newId();
  const userSubject = log.names.aggregateSubject("user", userId);
  const teamSubject = log.names.aggregateSubject("team", teamId);
  let name = `user-${index}`;
  let seq = await publish(userSubject, [{ type: "UserRegistered", v: 1, user_id: userId, email: `u${index}-${userId}@example.test`, name }], userId);
  auditRowsBySeq.set(seq, 0);
  seq = await publish(
    teamSubject,
    [
      { type: "TeamCreated", v: 1, team_id: teamId, name: `${name}'s team`, slug: `team-${index}-${teamId.slice(0, 8)}`, created_by: userId, for_new_user: true },
      { type: "MemberAdded", v: 1, team_id: teamId, user_id: userId, role: "owner" },
    ],
    userId,
  );
  auditRowsBySeq.set(seq, 3); // user create + team create + member create
  lastSeqBySubject.set(teamSubject, seq);
  for (let rename = 1; rename <= RENAMES; rename += 1) {
    const next = `user-${index}-v${rename}`;
    seq = await publish(userSubject, [{ type: "UserRenamed", v: 1, user_id: userId, name: next, previous_name: name, team_ids: [teamId] }], userId);
    auditRowsBySeq.set(seq, 1);
    name = next;
  }
  lastSeqBySubject.set(userSubject, seq);
  finalNameByUser.set(userId, name);
}

async function appendUsers(from: number, to: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < to) await appendUser(next++);
    }),
  );
}

async function appendPoison(data: string): Promise<void> {
  const subject = log.names.aggregateSubject("user", newId());
  const ack = await append(log, subject, data, { msgId: newId() });
  poisonSeqs.push({ seq: ack.seq, subject });
  // A parked fact still counts in its aggregate's version.
  lastSeqBySubject.set(subject, ack.seq);
}

async function checkpoints(): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ projection: string; last_seq: string }>(`
    select c.projection, c.last_seq from projection_checkpoints c
      join projection_generations g on g.projection = c.projection and g.active_generation = c.generation`);
  return Object.fromEntries(rows.map((row) => [row.projection, Number(row.last_seq)]));
}

/** Backends of the projector process whose transaction has written something not yet committed. */
async function writingBackends(label: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    "select count(*) as n from pg_stat_activity where application_name = $1 and backend_xid is not null",
    [label],
  );
  return Number(rows[0]!.n);
}

async function backendsOf(label: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>("select count(*) as n from pg_stat_activity where application_name = $1", [label]);
  return Number(rows[0]!.n);
}

const expectedAuditRowsUpTo = (seq: number) => [...auditRowsBySeq].reduce((sum, [at, rows]) => (at <= seq ? sum + rows : sum), 0);

async function count(table: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(`select count(*) as n from public.${table}`);
  return Number(rows[0]!.n);
}

describe("projector crash", () => {
  // A backlog, a SIGKILL and a restart of every projector: well over a minute on a loaded machine.
  it("applies every fact exactly once after a SIGKILL in the middle of a batch, and parks poison facts", async () => {
    const started = Date.now();
    await appendUsers(0, USERS / 2);
    // Two messages no projection can decode, in the middle of the backlog.
    await appendPoison("this is not an envelope {");
    await appendPoison(JSON.stringify({ id: newId(), at: new Date().toISOString(), actor: { type: "user", id: null }, events: [{ type: "NoSuchEvent", v: 1 }] }));
    await appendUsers(USERS / 2, USERS);
    const head = await streamHead(log);
    const facts = USERS * (2 + RENAMES) + poisonSeqs.length;
    expect(head).toBe(facts);
    const totalAuditRows = expectedAuditRowsUpTo(head);
    expect(totalAuditRows).toBe(USERS * (3 + RENAMES));
    const appendedMs = Date.now() - started;

    // First run: kill it once a good part of the backlog has committed and the next batch has written
    // rows but not committed them.
    const first = startProjector("projector-crash-1");
    const atKill = await waitUntil(
      "the projector to be inside a batch after committing 1000 facts",
      async () => {
        const positions = await checkpoints();
        const directory = positions.directory ?? 0;
        if (directory >= 1_000 && directory < head && (await writingBackends("projector-crash-1")) > 0) return positions;
        return undefined;
      },
      // Seven DOMAIN read models share the child's cores with the rest of a loaded suite.
      90_000,
      5,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nprojector output:\n${first.output()}`);
    });
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    const killedMs = Date.now() - started;

    // Postgres rolls the open transaction back once it sees the connection gone.
    await waitUntil("the killed projector's sessions to end", async () => (await backendsOf("projector-crash-1")) === 0, 10_000);
    const afterKill = await checkpoints();
    expect(afterKill.directory).toBeGreaterThanOrEqual(atKill.directory!);
    expect(afterKill.directory).toBeLessThan(head);
    // The batch and its checkpoint commit together: nothing past the checkpoint is visible.
    const { rows: versionRows } = await admin.query<{ max: string | null }>("select max(last_seq) as max from public.aggregate_versions");
    expect(Number(versionRows[0]!.max ?? 0)).toBeLessThanOrEqual(afterKill.directory!);
    expect(await count("audit_logs")).toBe(expectedAuditRowsUpTo(afterKill.audit!));

    // Second run starts at checkpoint + 1 and finishes the backlog.
    const second = startProjector("projector-crash-2");
    await waitUntil(
      "both read models to reach the head of the stream",
      async () => {
        const positions = await checkpoints();
        return positions.directory === head && positions.audit === head;
      },
      45_000,
      50,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nprojector output:\n${second.output()}`);
    });
    const caughtUpMs = Date.now() - started;

    // Exactly once: every audit row expected, none twice (ids are derived from the fact and its position).
    expect(await count("audit_logs")).toBe(totalAuditRows);
    const { rows: duplicates } = await admin.query(`
      select team_id, resource_type, resource_id, action, changes, count(*) from public.audit_logs
       group by 1, 2, 3, 4, 5 having count(*) > 1 limit 5`);
    expect(duplicates).toEqual([]);
    expect(await count("users")).toBe(USERS);
    expect(await count("teams")).toBe(USERS);
    expect(await count("team_members")).toBe(USERS);

    // In order: every user's name is the last rename, every aggregate version the subject's last seq.
    const { rows: users } = await admin.query<{ id: string; name: string }>("select id, name from public.users");
    expect(new Map(users.map((user) => [user.id, user.name]))).toEqual(finalNameByUser);
    const { rows: versions } = await admin.query<{ subject: string; last_seq: string }>("select subject, last_seq from public.aggregate_versions");
    expect(new Map(versions.map((row) => [row.subject, Number(row.last_seq)]))).toEqual(lastSeqBySubject);

    // Poison facts: parked once per projection with their seq and subject, and the projector moved past them.
    const { rows: parked } = await admin.query<{ projection: string; generation: number; seq: string; subject: string; error: string }>(
      "select projection, generation, seq, subject, error from parked_facts order by projection, seq",
    );
    const expectedParked = ["audit", "directory"].flatMap((projection) =>
      poisonSeqs.map((poison) => ({ projection, generation: 1, seq: String(poison.seq), subject: poison.subject, error: expect.any(String) })),
    );
    expect(parked).toEqual(expectedParked);

    await second.stop("SIGTERM");
    expect((await second.exited).code).toBe(0);
    console.info(
      `projector-crash: ${facts} facts appended in ${appendedMs} ms; killed at ${killedMs} ms with directory at ${afterKill.directory} and audit at ${afterKill.audit}; caught up at ${caughtUpMs} ms`,
    );
  }, 240_000);
});
