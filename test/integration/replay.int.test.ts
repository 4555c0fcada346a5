import { rm } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../domain/shared/ids.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { createApp, createProject, projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { invitationToken } from "../support/outbox.ts";
import { cleanUp, waitUntil } from "../support/processes.ts";
import { replayDeps, runReplayCli } from "../support/replay.ts";
import { startWithClient, stopTestService, type TestService } from "../support/service.ts";
import { appendFacts, streamHead } from "../support/streams.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Rebuilds the directory and audit read models from sequence 1 (operator CLI and the replay()
 * function) while the API keeps serving, and checks that the rebuilt generation holds exactly
 * the rows the live one held, that the swap is invisible to readers, and that writes made during
 * a replay are neither lost nor applied twice.
 */

let service: TestService;
let http: Client;
let admin: pg.Client;

/** Tables the test populates; the snapshot covers every table of the read models, these included. */
const POPULATED = ["users", "teams", "team_members", "api_keys", "aggregate_versions", "invitations", "projects", "apps", "metric_definitions", "funnel_definitions", "audit_logs"];

/** The public views over the read models' generation schemas: every table the API reads. */
async function readModelViews(): Promise<{ viewname: string; definition: string }[]> {
  const { rows } = await admin.query<{ viewname: string; definition: string }>(
    "select viewname, definition from pg_views where schemaname = 'public' and definition ~ 'rm_(directory|audit)_g' order by 1",
  );
  return rows;
}

/** Every row of every read-model table, read through the public views, in a stable order. */
async function snapshot(): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const { viewname } of await readModelViews()) {
    // to_jsonb keeps every column at full precision (timestamps with microseconds, arrays, jsonb).
    const { rows } = await admin.query<{ row: string }>(`select to_jsonb(t)::text as row from public.${pg.escapeIdentifier(viewname)} t`);
    result[viewname] = rows.map((row) => row.row).sort();
  }
  return result;
}

async function generations(): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ projection: string; active_generation: number }>(
    "select projection, active_generation from projection_generations where projection in ('directory', 'audit')",
  );
  return Object.fromEntries(rows.map((row) => [row.projection, row.active_generation]));
}

async function schemas(): Promise<string[]> {
  const { rows } = await admin.query<{ nspname: string }>("select nspname from pg_namespace where nspname ~ '^rm_(directory|audit)_g' order by 1");
  return rows.map((row) => row.nspname);
}

async function checkpointRows(): Promise<{ projection: string; generation: number; last_seq: string }[]> {
  const { rows } = await admin.query(
    "select projection, generation, last_seq from projection_checkpoints where projection in ('directory', 'audit') order by 1, 2",
  );
  return rows;
}

/** Both read models have applied everything on the stream. */
async function settled(): Promise<void> {
  const head = await streamHead(service.log);
  await waitUntil("the read models to reach the head of the stream", () => service.runners.length > 0 && checkpointsAt(head), 15_000);
}

async function checkpointsAt(seq: number): Promise<boolean> {
  const { rows } = await admin.query<{ last_seq: string }>(`
    select c.last_seq from projection_checkpoints c
      join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
     where c.projection in ('directory', 'audit')`);
  return rows.length === 2 && rows.every((row) => Number(row.last_seq) >= seq);
}

/**
 * Reads the API answers continuously until stopped; every answer must be 200 with the expected
 * body. Returns how many reads were made and every unexpected answer.
 */
function keepReading(users: SignedIn[], agentKey: string) {
  let stopped = false;
  const failures: string[] = [];
  let reads = 0;
  const loops = [0, 1, 2, 3].map(async (lane) => {
    while (!stopped) {
      const user = users[(reads + lane) % users.length]!;
      const [me, team, whoami] = await Promise.all([
        http.get("/v1/auth/me", { token: user.token }),
        http.get(`/v1/teams/${user.teamId}`, { token: user.token }),
        http.get("/v1/auth/whoami", { token: agentKey }),
      ]);
      reads += 3;
      if (me.status !== 200 || me.body.user?.id !== user.userId) failures.push(`GET /v1/auth/me ${me.status} ${JSON.stringify(me.body)}`);
      if (team.status !== 200 || team.body.id !== user.teamId) failures.push(`GET /v1/teams/:id ${team.status} ${JSON.stringify(team.body)}`);
      if (whoami.status !== 200 || whoami.body.type !== "api_key") failures.push(`GET /v1/auth/whoami ${whoami.status} ${JSON.stringify(whoami.body)}`);
    }
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return { reads, failures };
    },
  };
}

const BACKLOG_USERS = 1_100;

/** Users registered and renamed by facts appended straight to the stream: two facts each. */
async function appendBacklog(count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (next < count) {
        const index = next++;
        const userId = newId();
        const subject = service.log.names.aggregateSubject("user", userId);
        await appendFacts(service.log, subject, [{ type: "UserRegistered", v: 1, user_id: userId, email: `backlog-${index}-${userId}@example.test`, name: `b${index}` }]);
        await appendFacts(service.log, subject, [{ type: "UserRenamed", v: 1, user_id: userId, name: `b${index} renamed`, previous_name: `b${index}`, team_ids: [] }]);
      }
    }),
  );
}

/** Projects, apps and keys through their whole lives: created, changed, deleted and re-created. */
async function populateCatalog(user: SignedIn): Promise<void> {
  const token = user.token;
  const kept = await createProject(http, token, user.teamId, { retention_days_events: 30 });
  expect((await http.patch(`/v1/projects/${kept.id}`, { color: "#123456", issue_alert_frequency: "weekly", retention_days_events: null }, { token })).status).toBe(200);
  const app = await createApp(http, token, kept.id);
  expect((await http.patch(`/v1/apps/${app.id}`, { name: "Renamed app" }, { token })).status).toBe(200);
  await createApp(http, token, kept.id, { platform: "backend" });
  const gone = await createApp(http, token, kept.id, { platform: "web", bundle_id: "example.com" });
  expect((await http.delete(`/v1/apps/${gone.id}`, { token })).status).toBe(200);
  const key = await http.post("/v1/auth/keys", { name: "ci", key_type: "import", app_id: app.id, expires_in_days: 7 }, { token });
  expect((await http.patch(`/v1/auth/keys/${key.body.api_key.id}`, { name: "ci import" }, { token })).status).toBe(200);
  const dropped = await http.post("/v1/auth/keys", { name: "tmp", key_type: "agent", team_id: user.teamId }, { token });
  expect((await http.delete(`/v1/auth/keys/${dropped.body.api_key.id}`, { token })).status).toBe(200);
  const replaced = await projectWithApp(http, token, user.teamId);
  expect((await http.delete(`/v1/projects/${replaced.project.id}`, { token })).status).toBe(200);
  await createProject(http, token, user.teamId, { slug: replaced.project.slug });

  const metrics = `/v1/projects/${kept.id}/metrics`;
  expect((await http.post(metrics, { name: "Checkout", slug: "checkout", schema_definition: { type: "object" } }, { token })).status).toBe(201);
  expect((await http.patch(`${metrics}/checkout`, { aggregation_rules: { p95: true } }, { token })).status).toBe(200);
  expect((await http.delete(`${metrics}/checkout`, { token })).status).toBe(200);
  expect((await http.post(metrics, { name: "Checkout again", slug: "checkout" }, { token })).status).toBe(201);
  const funnels = `/v1/projects/${kept.id}/funnels`;
  const steps = [{ name: "Open", event_filter: { screen_name: "Home" } }];
  expect((await http.post(funnels, { name: "Onboarding", slug: "onboarding", steps }, { token })).status).toBe(201);
  expect((await http.patch(`${funnels}/onboarding`, { description: "first run" }, { token })).status).toBe(200);
}

let users: SignedIn[] = [];
let agentKey: string;

beforeAll(async () => {
  ({ service, http } = await startWithClient());
  admin = new pg.Client({ connectionString: service.databaseUrl });
  await admin.connect();
});

afterAll(async () => {
  await cleanUp([
    () => admin?.end().catch(() => undefined),
    () => service && stopTestService(service),
    () => service && rm(service.outbox, { recursive: true, force: true }),
  ]);
});

describe("replay", () => {
  it("rebuilds identical directory and audit read models while the API keeps answering", async () => {
    // Populate through HTTP: sign-ups, renames, extra teams renamed and deleted, agent keys.
    users = await Promise.all(Array.from({ length: 6 }, () => signIn(http, service.outbox)));
    for (const [index, user] of users.entries()) {
      expect((await http.patch("/v1/auth/me", { name: `Person ${index}` }, { token: user.token })).status).toBe(200);
      expect((await http.patch("/v1/auth/me", { name: `Person ${index} again` }, { token: user.token })).status).toBe(200);
      const extra = await http.post("/v1/teams", { name: `Extra ${index}`, slug: `extra-${index}-${user.userId.slice(0, 8)}` }, { token: user.token });
      expect(extra.status).toBe(201);
      expect((await http.patch(`/v1/teams/${extra.body.id}`, { name: `Extra ${index} renamed` }, { token: user.token })).status).toBe(200);
      expect((await http.post("/v1/auth/default-agent-key", { team_id: extra.body.id }, { token: user.token })).status).toBe(201);
      if (index % 2 === 0) expect((await http.delete(`/v1/teams/${extra.body.id}`, { token: user.token })).status).toBe(200);
    }
    const key = await http.post("/v1/auth/default-agent-key", { team_id: users[0]!.teamId }, { token: users[0]!.token });
    expect(key.status).toBe(201);
    agentKey = key.body.secret;

    // A member joins through an invitation, is promoted, creates a key and is removed with it;
    // another invitation stays pending and a third is revoked.
    const [owner, member] = [users[1]!, users[2]!];
    const invited = await http.post(`/v1/teams/${owner.teamId}/invitations`, { email: member.email, role: "member" }, { token: owner.token });
    expect(invited.status).toBe(201);
    const accepted = await http.post("/v1/invites/accept", { token: await invitationToken(service.outbox, member.email) }, { token: member.token });
    expect(accepted.status).toBe(200);
    expect((await http.patch(`/v1/teams/${owner.teamId}/members/${member.userId}`, { role: "admin" }, { token: owner.token })).status).toBe(200);
    expect((await http.post("/v1/auth/default-agent-key", { team_id: owner.teamId }, { token: member.token })).status).toBe(201);
    const removed = await http.delete(`/v1/teams/${owner.teamId}/members/${member.userId}?revoke_agent_keys=true`, { token: owner.token });
    expect(removed.body).toEqual({ removed: true, revoked_agent_keys: 1 });
    expect((await http.post(`/v1/teams/${owner.teamId}/invitations`, { email: "pending@example.test" }, { token: owner.token })).status).toBe(201);
    const revoked = await http.post(`/v1/teams/${owner.teamId}/invitations`, { email: "revoked@example.test" }, { token: owner.token });
    expect((await http.delete(`/v1/teams/${owner.teamId}/invitations/${revoked.body.id}`, { token: owner.token })).status).toBe(200);
    await populateCatalog(users[3]!);
    await settled();

    const before = await snapshot();
    for (const table of POPULATED) expect(before[table]?.length, table).toBeGreaterThan(0);
    expect(await generations()).toEqual({ directory: 1, audit: 1 });
    const head = await streamHead(service.log);

    const reader = keepReading(users, agentKey);
    const started = Date.now();
    // The directory through the operator CLI in its own process, the audit log through replay().
    const cli = runReplayCli(service, "directory");
    const [cliExit, auditGeneration] = await Promise.all([cli.exited, replay(replayDeps(service), projectionNamed("audit"))]);
    const replayMs = Date.now() - started;
    // Keep reading a little after the swaps, when the live projectors restart on the new generation.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { reads, failures } = await reader.stop();

    expect(cliExit, cli.output()).toEqual({ code: 0, signal: null });
    expect(cli.output()).toContain("read model directory rebuilt as generation 2 and swapped in");
    expect(auditGeneration).toBe(2);
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(0);

    expect(await generations()).toEqual({ directory: 2, audit: 2 });
    expect(await schemas()).toEqual(["rm_audit_g2", "rm_directory_g2"]);
    expect(await checkpointRows()).toEqual([
      { projection: "audit", generation: 2, last_seq: String(head) },
      { projection: "directory", generation: 2, last_seq: String(head) },
    ]);
    const views = await readModelViews();
    expect(views.map((view) => view.viewname)).toEqual(Object.keys(before).sort());
    for (const view of views) expect(view.definition, view.viewname).toMatch(/rm_(directory|audit)_g2\./);

    const after = await snapshot();
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);

    // After the swap the live projectors follow the new generation: a write is visible at once.
    const renamed = await http.patch("/v1/auth/me", { name: "After the swap" }, { token: users[0]!.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body.user.name).toBe("After the swap");
    const audit = await admin.query("select 1 from audit_logs where resource_id = $1 and changes -> 'name' ->> 'after' = 'After the swap'", [users[0]!.userId]);
    expect(audit.rowCount).toBe(users[0]!.body.teams.length);
    console.info(`replay: ${head} facts rebuilt into two read models in ${replayMs} ms while serving ${reads} reads`);
  });

  // Two replays of a backlog while four writers keep going take well over a minute on a loaded machine.
  it("loses and duplicates no write made while a replay catches up and swaps", async () => {
    // A backlog larger than one replay batch, so the replay first catches up outside the swap lock
    // while writes land, then applies the rest under the lock and swaps.
    await appendBacklog(BACKLOG_USERS);
    await settled();

    const writers = users.slice(0, 4);
    let stopped = false;
    const outcomes: { status: number; body: unknown; what: string }[] = [];
    const lastName = new Map<string, string>();
    const createdTeams: string[] = [];
    const lanes = writers.map(async (user, lane) => {
      for (let round = 0; !stopped || round < 3; round += 1) {
        // A steady stream of writes, not a flood: the replay must converge on a moving head, and on
        // a loaded machine four writers at full speed keep it chasing for minutes.
        await new Promise((resolve) => setTimeout(resolve, 20));
        const name = `Writer ${lane} round ${round}`;
        const rename = await http.patch("/v1/auth/me", { name }, { token: user.token });
        outcomes.push({ status: rename.status, body: rename.body, what: "PATCH /v1/auth/me" });
        if (rename.status === 200) lastName.set(user.userId, name);
        if (round % 3 === 0) {
          const team = await http.post("/v1/teams", { name: `Team ${lane}.${round}`, slug: `t-${lane}-${round}-${newId().slice(0, 8)}` }, { token: user.token });
          outcomes.push({ status: team.status, body: team.body, what: "POST /v1/teams" });
          if (team.status === 201) createdTeams.push(team.body.id);
        }
      }
    });

    await waitUntil("some writes before the replay", () => outcomes.length >= 8, 10_000, 10);
    const before = outcomes.length;
    const replayStarted = Date.now();
    const generation = await replay(replayDeps(service), projectionNamed("directory"));
    const auditGeneration = await replay(replayDeps(service), projectionNamed("audit"));
    const during = outcomes.length - before;
    const replayMs = Date.now() - replayStarted;
    await waitUntil("some writes after the swaps", () => outcomes.length >= 40 + 8, 20_000, 10).catch(() => undefined);
    stopped = true;
    await Promise.all(lanes);

    expect(generation).toBe(3);
    expect(auditGeneration).toBe(3);
    expect(during).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome.status >= 300)).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(20);

    // Every acknowledged write is in the read models the API now reads.
    for (const user of writers) {
      expect((await http.get("/v1/auth/me", { token: user.token })).body.user.name).toBe(lastName.get(user.userId));
    }
    const { rows: teams } = await admin.query<{ id: string }>("select id from teams where id = any($1::uuid[])", [createdTeams]);
    expect(teams.map((team) => team.id).sort()).toEqual([...createdTeams].sort());
    const renames = outcomes.filter((outcome) => outcome.what === "PATCH /v1/auth/me").length;
    const { rows: renameRows } = await admin.query<{ n: string }>(
      "select count(*) as n from audit_logs where resource_type = 'user' and changes -> 'name' ->> 'after' like 'Writer %'",
    );
    // One audit row per team the renamed user belonged to at the time: at least one per rename.
    expect(Number(renameRows[0]!.n)).toBeGreaterThanOrEqual(renames);
    await settled();

    // The generation that was swapped in under writes equals one rebuilt from scratch at rest.
    const live = await snapshot();
    expect(await replay(replayDeps(service), projectionNamed("directory"))).toBe(4);
    expect(await replay(replayDeps(service), projectionNamed("audit"))).toBe(4);
    const rebuilt = await snapshot();
    expect(Object.keys(rebuilt).sort()).toEqual(Object.keys(live).sort());
    for (const table of Object.keys(live)) expect(rebuilt[table], table).toEqual(live[table]);
    expect(await schemas()).toEqual(["rm_audit_g4", "rm_directory_g4"]);
    console.info(`replay under writes: ${during} writes answered during the ${replayMs} ms of two replays, ${outcomes.length} in all`);
  }, 150_000);
});
