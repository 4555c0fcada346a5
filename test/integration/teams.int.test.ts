import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../domain/shared/roles.ts";
import { uniqueSlug } from "../support/catalog.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithClient, stopTestService, type TestService } from "../support/service.ts";
import { requestCode, signIn, uniqueEmail, type SignedIn } from "../support/users.ts";

let service: TestService;
let http: Client;

beforeAll(async () => {
  ({ service, http } = await startWithClient());
});
afterAll(async () => stopTestService(service));

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A fresh team owned by `owner` (created through POST /v1/teams, so the owner has two teams). */
async function createTeam(owner: SignedIn, name = "Team"): Promise<{ id: string; name: string; slug: string }> {
  const created = await http.post("/v1/teams", { name, slug: uniqueSlug("team") }, { token: owner.token });
  expect(created.status).toBe(201);
  return created.body;
}

/** A team with a signed-in owner and one new user per role in `roles`, each invited by the owner and accepted. */
async function teamWith(...roles: Role[]) {
  const owner = await signIn(http, service.outbox);
  const team = await createTeam(owner);
  const users: SignedIn[] = [];
  for (const role of roles) users.push(await joinTeam(http, service.outbox, { teamId: team.id, inviter: owner, role }));
  return { team, owner, users };
}

/** A new agent key of `user` in `teamId`, through agent-login. */
async function agentKey(user: SignedIn, teamId: string): Promise<string> {
  const code = await requestCode(http, service.outbox, user.email);
  const login = await http.post("/v1/auth/agent-login", { email: user.email, code, team_id: teamId });
  expect(login.status).toBe(201);
  return login.body.api_key;
}

async function rolesIn(teamId: string, token: string): Promise<Record<string, Role>> {
  const listed = await http.get(`/v1/teams/${teamId}/members`, { token });
  expect(listed.status).toBe(200);
  return Object.fromEntries(listed.body.members.map((member: { user_id: string; role: Role }) => [member.user_id, member.role]));
}

async function auditRows(teamId: string) {
  return service.pool.any(sql.unsafe`
    select actor_type, actor_id, action, resource_type, resource_id, changes, metadata
      from audit_logs where team_id = ${teamId} order by "timestamp", id`);
}

describe("POST /v1/teams", () => {
  it("creates a team (201) with the creator as owner", async () => {
    const user = await signIn(http, service.outbox);
    const slug = uniqueSlug("acme");
    const created = await http.post("/v1/teams", { name: "Acme", slug }, { token: user.token });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID), name: "Acme", slug, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) });

    const teams = await http.get("/v1/auth/teams", { token: user.token });
    expect(teams.body.teams).toContainEqual({ id: created.body.id, name: "Acme", slug, role: "owner" });
    expect(await rolesIn(created.body.id, user.token)).toEqual({ [user.userId]: "owner" });

    const audit = await auditRows(created.body.id);
    expect(audit).toHaveLength(2);
    expect(audit).toEqual(expect.arrayContaining([
      { actor_type: "user", actor_id: user.userId, action: "create", resource_type: "team", resource_id: created.body.id, changes: null, metadata: { name: "Acme", slug } },
      { actor_type: "user", actor_id: user.userId, action: "create", resource_type: "team_member", resource_id: user.userId, changes: null, metadata: { role: "owner" } },
    ]));
  });

  it("rejects a missing or malformed name or slug with 400", async () => {
    const user = await signIn(http, service.outbox);
    for (const body of [
      { name: "X", slug: "Upper-Case" },
      { name: "X", slug: "under_score" },
      { name: "X", slug: "spa ce" },
      { name: "X", slug: "ümlaut" },
      { name: "X", slug: "" },
      { name: "X" },
      { slug: uniqueSlug() },
      { name: "   ", slug: uniqueSlug() },
    ]) {
      const rejected = await http.post("/v1/teams", body, { token: user.token });
      expect(rejected.status, JSON.stringify(body)).toBe(400);
      expect(rejected.body).toEqual(anError);
    }
    expect((await http.get("/v1/auth/teams", { token: user.token })).body.teams).toHaveLength(1);
  });

  it("answers 409 for a slug an active team already has, whoever asks", async () => {
    const [first, second] = [await signIn(http, service.outbox), await signIn(http, service.outbox)];
    const slug = uniqueSlug("dup");
    expect((await http.post("/v1/teams", { name: "One", slug }, { token: first.token })).status).toBe(201);
    for (const user of [first, second]) {
      const duplicate = await http.post("/v1/teams", { name: "Two", slug }, { token: user.token });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toEqual(anError);
    }
    expect((await http.get("/v1/auth/teams", { token: second.token })).body.teams).toHaveLength(1);
  });

  it("gives exactly one 201 and one 409 when two creates of one slug race", async () => {
    const [first, second] = [await signIn(http, service.outbox), await signIn(http, service.outbox)];
    for (let round = 0; round < 3; round += 1) {
      const slug = uniqueSlug("race");
      const answers = await Promise.all([
        http.post("/v1/teams", { name: "A", slug }, { token: first.token }),
        http.post("/v1/teams", { name: "B", slug }, { token: second.token }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
      const count = await service.pool.oneFirst(sql.unsafe`select count(*)::int as count from teams where slug = ${slug}`);
      expect(count).toBe(1);
    }
  });
});

describe("GET /v1/teams/:teamId", () => {
  it("returns the team with its member rows; accepted invitations are no longer pending", async () => {
    const { team, owner, users } = await teamWith("member");
    const [member] = users as [SignedIn];
    const expected = {
      ...team,
      members: [
        { user_id: owner.userId, email: owner.email, name: owner.body.user.name, role: "owner", joined_at: expect.stringMatching(ISO) },
        { user_id: member.userId, email: member.email, name: member.body.user.name, role: "member", joined_at: expect.stringMatching(ISO) },
      ],
      pending_invitations: [],
    };
    for (const reader of [owner, member]) {
      const read = await http.get(`/v1/teams/${team.id}`, { token: reader.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(expected);
    }

    const email = uniqueEmail("pending");
    expect((await http.post(`/v1/teams/${team.id}/invitations`, { email }, { token: owner.token })).status).toBe(201);
    const withPending = await http.get(`/v1/teams/${team.id}`, { token: member.token });
    expect(withPending.body.members).toEqual(expected.members);
    expect(withPending.body.pending_invitations).toEqual([expect.objectContaining({ team_id: team.id, email, role: "member", accepted_at: null })]);
  });

  it("answers 404 for a team the caller is not in or that does not exist, 400 for a malformed id", async () => {
    const { team } = await teamWith();
    const outsider = await signIn(http, service.outbox);
    const foreign = await http.get(`/v1/teams/${team.id}`, { token: outsider.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(anError);
    expect((await http.get(`/v1/teams/${randomUUID()}`, { token: outsider.token })).status).toBe(404);
    const malformed = await http.get("/v1/teams/not-a-uuid", { token: outsider.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(anError);
  });
});

describe("PATCH /v1/teams/:teamId", () => {
  it("lets admins and owners rename the team; members get 403, outsiders 404", async () => {
    const { team, owner, users } = await teamWith("admin", "member");
    const [admin, member] = users as [SignedIn, SignedIn];

    const renamed = await http.patch(`/v1/teams/${team.id}`, { name: "Renamed by admin" }, { token: admin.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...team, name: "Renamed by admin", updated_at: expect.stringMatching(ISO) });
    expect((await http.patch(`/v1/teams/${team.id}`, { name: "Owner's name" }, { token: owner.token })).body.name).toBe("Owner's name");

    const denied = await http.patch(`/v1/teams/${team.id}`, { name: "Member's name" }, { token: member.token });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(anError);
    const outsider = await signIn(http, service.outbox);
    expect((await http.patch(`/v1/teams/${team.id}`, { name: "Outsider" }, { token: outsider.token })).status).toBe(404);
    expect((await http.patch(`/v1/teams/${team.id}`, { name: "" }, { token: owner.token })).status).toBe(400);
    expect((await http.patch(`/v1/teams/${team.id}`, {}, { token: owner.token })).status).toBe(400);

    expect((await http.get(`/v1/teams/${team.id}`, { token: member.token })).body.name).toBe("Owner's name");
    const renames = (await auditRows(team.id)).filter((row) => row.resource_type === "team" && row.action === "update");
    expect(renames).toEqual([
      { actor_type: "user", actor_id: admin.userId, action: "update", resource_type: "team", resource_id: team.id, changes: { name: { before: "Team", after: "Renamed by admin" } }, metadata: null },
      { actor_type: "user", actor_id: owner.userId, action: "update", resource_type: "team", resource_id: team.id, changes: { name: { before: "Renamed by admin", after: "Owner's name" } }, metadata: null },
    ]);
  });
});

describe("DELETE /v1/teams/:teamId", () => {
  it("refuses to delete the caller's only team (400)", async () => {
    const user = await signIn(http, service.outbox);
    const refused = await http.delete(`/v1/teams/${user.teamId}`, { token: user.token });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(anError);
    expect((await http.get(`/v1/teams/${user.teamId}`, { token: user.token })).status).toBe(200);
  });

  it("never deletes both of a user's last two teams when the deletions run in parallel", async () => {
    for (let round = 0; round < 3; round += 1) {
      const user = await signIn(http, service.outbox);
      const second = await createTeam(user);
      const answers = await Promise.all([user.teamId, second.id].map((teamId) => http.delete(`/v1/teams/${teamId}`, { token: user.token })));
      const statuses = answers.map((answer) => answer.status).sort();
      // One wins; the other is refused as the only team (400) or while the first is in flight (409).
      expect([[200, 400], [200, 409]]).toContainEqual(statuses);
      const teams = await http.get("/v1/auth/teams", { token: user.token });
      expect(teams.body.teams).toHaveLength(1);
    }
  });

  it("is for owners only: admins and members get 403, outsiders 404", async () => {
    const { team, owner, users } = await teamWith("admin", "member");
    for (const user of users) {
      const denied = await http.delete(`/v1/teams/${team.id}`, { token: user.token });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual(anError);
    }
    const outsider = await signIn(http, service.outbox);
    expect((await http.delete(`/v1/teams/${team.id}`, { token: outsider.token })).status).toBe(404);
    expect((await http.get(`/v1/teams/${team.id}`, { token: owner.token })).status).toBe(200);
  });

  it("deletes the team for everyone, revokes its keys and frees its slug", async () => {
    const { team, owner, users } = await teamWith("member");
    const [member] = users as [SignedIn];
    const key = await agentKey(member, team.id);
    expect((await http.get("/v1/auth/whoami", { token: key })).status).toBe(200);

    const deleted = await http.delete(`/v1/teams/${team.id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });

    for (const user of [owner, member]) {
      const teams = (await http.get("/v1/auth/teams", { token: user.token })).body.teams;
      expect(teams.map((listed: { id: string }) => listed.id)).not.toContain(team.id);
      expect(teams).toHaveLength(1);
      expect((await http.get(`/v1/teams/${team.id}`, { token: user.token })).status).toBe(404);
      expect((await http.get(`/v1/teams/${team.id}/members`, { token: user.token })).status).toBe(404);
    }
    expect((await http.delete(`/v1/teams/${team.id}`, { token: owner.token })).status).toBe(404);
    expect((await http.get("/v1/auth/whoami", { token: key })).status).toBe(401);

    const again = await http.post("/v1/teams", { name: "Reborn", slug: team.slug }, { token: owner.token });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(team.id);

    expect(await auditRows(team.id)).toContainEqual({
      actor_type: "user",
      actor_id: owner.userId,
      action: "delete",
      resource_type: "team",
      resource_id: team.id,
      changes: null,
      metadata: null,
    });
  });

  // Known gap: DELETE of a user's two teams at the same moment answers 200 twice and leaves the user
  // with no team (each command counts the caller's teams in its own team aggregate); the next
  // sign-in creates a fresh default team. Needs a cross-aggregate guard.
});

describe("GET /v1/teams/:teamId/members", () => {
  it("lists the member rows to every member and 404s outsiders", async () => {
    const { team, owner, users } = await teamWith("admin", "member");
    const [admin, member] = users as [SignedIn, SignedIn];
    const listed = await http.get(`/v1/teams/${team.id}/members`, { token: member.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      members: [owner, admin, member].map((user, index) => ({
        user_id: user.userId,
        email: user.email,
        name: user.body.user.name,
        role: (["owner", "admin", "member"] as const)[index],
        joined_at: expect.stringMatching(ISO),
      })),
    });
    expect((await http.get(`/v1/teams/${team.id}`, { token: admin.token })).body.members).toEqual(listed.body.members);
    const joins = (await auditRows(team.id)).filter((row) => row.resource_type === "team_member" && row.action === "create");
    expect(joins).toEqual(
      (
        [
          [owner, "owner"],
          [admin, "admin"],
          [member, "member"],
        ] as const
      ).map(([user, role]) => ({
        actor_type: "user",
        actor_id: user.userId,
        action: "create",
        resource_type: "team_member",
        resource_id: user.userId,
        changes: null,
        metadata: { role },
      })),
    );
    const outsider = await signIn(http, service.outbox);
    expect((await http.get(`/v1/teams/${team.id}/members`, { token: outsider.token })).status).toBe(404);
    expect((await http.get(`/v1/teams/nope/members`, { token: outsider.token })).status).toBe(400);
  });
});

describe("PATCH /v1/teams/:teamId/members/:userId", () => {
  const patchRole = (teamId: string, userId: string, role: unknown, token: string) =>
    http.patch(`/v1/teams/${teamId}/members/${userId}`, { role }, { token });

  it("lets owners set any role of others, including promotion to owner", async () => {
    const { team, owner, users } = await teamWith("member", "member");
    const [first, second] = users as [SignedIn, SignedIn];
    const promoted = await patchRole(team.id, first.userId, "admin", owner.token);
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ user_id: first.userId, role: "admin" });
    expect((await patchRole(team.id, second.userId, "owner", owner.token)).body).toEqual({ user_id: second.userId, role: "owner" });
    // The second owner may demote the first one now that the team has two owners.
    expect((await patchRole(team.id, owner.userId, "member", second.token)).status).toBe(200);
    expect(await rolesIn(team.id, owner.token)).toEqual({ [owner.userId]: "member", [first.userId]: "admin", [second.userId]: "owner" });

    const changes = (await auditRows(team.id)).filter((row) => row.resource_type === "team_member" && row.action === "update");
    expect(changes).toEqual([
      { actor_type: "user", actor_id: owner.userId, action: "update", resource_type: "team_member", resource_id: first.userId, changes: { role: { before: "member", after: "admin" } }, metadata: null },
      { actor_type: "user", actor_id: owner.userId, action: "update", resource_type: "team_member", resource_id: second.userId, changes: { role: { before: "member", after: "owner" } }, metadata: null },
      { actor_type: "user", actor_id: second.userId, action: "update", resource_type: "team_member", resource_id: owner.userId, changes: { role: { before: "owner", after: "member" } }, metadata: null },
    ]);
  });

  it("lets admins change only members of a lower role, up to admin but never to owner", async () => {
    const { team, owner, users } = await teamWith("admin", "admin", "member", "member");
    const [admin, otherAdmin, member, otherMember] = users as [SignedIn, SignedIn, SignedIn, SignedIn];

    const unchanged = await patchRole(team.id, member.userId, "member", admin.token);
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual({ user_id: member.userId, role: "member" });

    const promoted = await patchRole(team.id, member.userId, "admin", admin.token);
    expect(promoted.body).toEqual({ user_id: member.userId, role: "admin" });

    for (const [target, role] of [
      [otherMember, "owner"],
      [otherAdmin, "member"],
      [otherAdmin, "owner"],
      [owner, "admin"],
      [owner, "member"],
    ] as const) {
      const denied = await patchRole(team.id, target.userId, role, admin.token);
      expect(denied.status, `${role}`).toBe(403);
      expect(denied.body).toEqual(anError);
    }
    expect(await rolesIn(team.id, owner.token)).toEqual({
      [owner.userId]: "owner",
      [admin.userId]: "admin",
      [otherAdmin.userId]: "admin",
      [member.userId]: "admin",
      [otherMember.userId]: "member",
    });
    expect((await auditRows(team.id)).filter((row) => row.resource_type === "team_member" && row.action === "update")).toHaveLength(1);
  });

  it("gives members 403 and outsiders 404", async () => {
    const { team, owner, users } = await teamWith("member", "member");
    const [member, otherMember] = users as [SignedIn, SignedIn];
    expect((await patchRole(team.id, otherMember.userId, "admin", member.token)).status).toBe(403);
    expect((await patchRole(team.id, member.userId, "admin", member.token)).status).toBe(403);
    const outsider = await signIn(http, service.outbox);
    expect((await patchRole(team.id, member.userId, "admin", outsider.token)).status).toBe(404);
    expect(await rolesIn(team.id, owner.token)).toEqual({ [owner.userId]: "owner", [member.userId]: "member", [otherMember.userId]: "member" });
  });

  it("refuses to change one's own role (400) and protects the last owner", async () => {
    const { team, owner, users } = await teamWith("admin", "owner");
    const [admin, secondOwner] = users as [SignedIn, SignedIn];
    for (const [user, role] of [
      [admin, "member"],
      [secondOwner, "admin"],
      [owner, "member"],
    ] as const) {
      const refused = await patchRole(team.id, user.userId, role, user.token);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(anError);
    }
    // With one owner left, nobody can demote them: the owner cannot change their own role and
    // nobody else may touch an owner.
    expect((await patchRole(team.id, secondOwner.userId, "member", owner.token)).status).toBe(200);
    expect((await patchRole(team.id, owner.userId, "admin", owner.token)).status).toBe(400);
    expect((await patchRole(team.id, owner.userId, "member", admin.token)).status).toBe(403);
    expect((await rolesIn(team.id, owner.token))[owner.userId]).toBe("owner");
  });

  it("validates the role and the target", async () => {
    const { team, owner, users } = await teamWith("member");
    const [member] = users as [SignedIn];
    expect((await patchRole(team.id, member.userId, "superuser", owner.token)).status).toBe(400);
    expect((await http.patch(`/v1/teams/${team.id}/members/${member.userId}`, {}, { token: owner.token })).status).toBe(400);
    expect((await patchRole(team.id, "not-a-uuid", "admin", owner.token)).status).toBe(400);
    const stranger = await signIn(http, service.outbox);
    const missing = await patchRole(team.id, stranger.userId, "admin", owner.token);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(anError);
    const unchanged = await patchRole(team.id, member.userId, "member", owner.token);
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual({ user_id: member.userId, role: "member" });
    expect((await auditRows(team.id)).filter((row) => row.resource_type === "team_member" && row.action === "update")).toEqual([]);
  });

  it("lets exactly one of two owners demoting each other at the same moment win", async () => {
    for (const role of ["admin", "member"] as const) {
      for (let round = 0; round < 3; round += 1) {
        const { team, owner, users } = await teamWith("owner");
        const [other] = users as [SignedIn];
        const answers = await Promise.all([patchRole(team.id, other.userId, role, owner.token), patchRole(team.id, owner.userId, role, other.token)]);
        const statuses = answers.map((answer) => answer.status);
        expect(statuses.filter((status) => status === 200), JSON.stringify(statuses)).toHaveLength(1);
        expect(statuses.filter((status) => status === 400 || status === 403), JSON.stringify(statuses)).toHaveLength(1);
        const roles = Object.values(await rolesIn(team.id, owner.token));
        expect(roles.sort()).toEqual([role, "owner"].sort());
      }
    }
  });
});

describe("DELETE /v1/teams/:teamId/members/:userId", () => {
  const remove = (teamId: string, userId: string, token: string, query = "") =>
    http.delete(`/v1/teams/${teamId}/members/${userId}${query}`, { token });

  /** `by` removes `user` from the team (200, no keys revoked) and the team is gone for `user`. */
  async function expectRemoved(teamId: string, user: SignedIn, by: SignedIn): Promise<void> {
    const removed = await remove(teamId, user.userId, by.token);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: true, revoked_agent_keys: 0 });
    expect((await http.get(`/v1/teams/${teamId}`, { token: user.token })).status).toBe(404);
  }

  it("lets owners remove anyone, including another owner", async () => {
    const { team, owner, users } = await teamWith("owner", "admin", "member");
    const [otherOwner, admin, member] = users as [SignedIn, SignedIn, SignedIn];
    for (const user of [member, admin, otherOwner]) {
      await expectRemoved(team.id, user, owner);
      expect((await http.get("/v1/auth/teams", { token: user.token })).body.teams.map((t: { id: string }) => t.id)).not.toContain(team.id);
    }
    expect(await rolesIn(team.id, owner.token)).toEqual({ [owner.userId]: "owner" });

    const removals = (await auditRows(team.id)).filter((row) => row.resource_type === "team_member" && row.action === "delete");
    expect(removals).toEqual(
      (
        [
          [member, "member"],
          [admin, "admin"],
          [otherOwner, "owner"],
        ] as const
      ).map(([user, role]) => ({
        actor_type: "user",
        actor_id: owner.userId,
        action: "delete",
        resource_type: "team_member",
        resource_id: user.userId,
        changes: null,
        metadata: { role, revoked_agent_key_ids: [] },
      })),
    );
  });

  it("lets admins remove only lower roles and members nobody else", async () => {
    const { team, owner, users } = await teamWith("admin", "admin", "member", "member");
    const [admin, otherAdmin, member, otherMember] = users as [SignedIn, SignedIn, SignedIn, SignedIn];
    for (const [actor, target] of [
      [admin, otherAdmin],
      [admin, owner],
      [member, otherMember],
      [member, admin],
      [member, owner],
    ] as const) {
      const denied = await remove(team.id, target.userId, actor.token);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual(anError);
    }
    expect((await remove(team.id, member.userId, admin.token)).body).toEqual({ removed: true, revoked_agent_keys: 0 });
    expect(Object.keys(await rolesIn(team.id, owner.token))).toHaveLength(4);
  });

  it("lets anyone leave except the sole owner (400)", async () => {
    const { team, owner, users } = await teamWith("admin", "member", "owner");
    const [admin, member, secondOwner] = users as [SignedIn, SignedIn, SignedIn];
    for (const user of [member, admin, secondOwner]) await expectRemoved(team.id, user, user);
    const refused = await remove(team.id, owner.userId, owner.token);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(anError);
    expect(await rolesIn(team.id, owner.token)).toEqual({ [owner.userId]: "owner" });
  });

  it("lets only one of two owners leaving at the same moment go", async () => {
    for (let round = 0; round < 3; round += 1) {
      const { team, owner, users } = await teamWith("owner");
      const [other] = users as [SignedIn];
      const answers = await Promise.all([remove(team.id, owner.userId, owner.token), remove(team.id, other.userId, other.token)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const stayer = answers[0]!.status === 200 ? other : owner;
      expect(await rolesIn(team.id, stayer.token)).toEqual({ [stayer.userId]: "owner" });
    }
  });

  it("validates the target, the caller and the query", async () => {
    const { team, owner, users } = await teamWith("member");
    const [member] = users as [SignedIn];
    const stranger = await signIn(http, service.outbox);
    expect((await remove(team.id, stranger.userId, owner.token)).status).toBe(404);
    expect((await remove(team.id, member.userId, stranger.token)).status).toBe(404);
    expect((await remove(team.id, "not-a-uuid", owner.token)).status).toBe(400);
    expect((await remove(team.id, member.userId, owner.token, "?revoke_agent_keys=yes")).status).toBe(400);
    expect(Object.keys(await rolesIn(team.id, owner.token))).toHaveLength(2);
  });

  it("revoke_agent_keys=true soft-deletes the member's agent keys of the team and counts them", async () => {
    const { team, owner, users } = await teamWith("member", "member");
    const [member, otherMember] = users as [SignedIn, SignedIn];
    const keys = [await agentKey(member, team.id), await agentKey(member, team.id)];
    const elsewhere = await agentKey(member, member.teamId);
    const othersKey = await agentKey(otherMember, team.id);
    const keyIds = (await http.get(`/v1/teams/${team.id}/members/${member.userId}/agent-keys`, { token: owner.token })).body.keys.map(
      (key: { id: string }) => key.id,
    );
    expect(keyIds).toHaveLength(2);

    const removed = await remove(team.id, member.userId, owner.token, "?revoke_agent_keys=true");
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: true, revoked_agent_keys: 2 });
    for (const key of keys) {
      const revoked = await http.get("/v1/auth/whoami", { token: key });
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual(anError);
    }
    expect((await http.get("/v1/auth/whoami", { token: elsewhere })).status).toBe(200);
    expect((await http.get("/v1/auth/whoami", { token: othersKey })).status).toBe(200);
    const deletedAt = await service.pool.anyFirst(sql.unsafe`select deleted_at from api_keys where id = any(${sql.array(keyIds, "uuid")})`);
    expect(deletedAt).toEqual([expect.stringMatching(ISO), expect.stringMatching(ISO)]);

    const removal = (await auditRows(team.id)).find((row) => row.resource_type === "team_member" && row.action === "delete");
    expect(removal?.metadata).toEqual({ role: "member", revoked_agent_key_ids: expect.arrayContaining(keyIds) });
  });

  it("keeps the member's agent keys without revoke_agent_keys", async () => {
    const { team, owner, users } = await teamWith("member");
    const [member] = users as [SignedIn];
    const key = await agentKey(member, team.id);
    const removed = await remove(team.id, member.userId, owner.token, "?revoke_agent_keys=false");
    expect(removed.body).toEqual({ removed: true, revoked_agent_keys: 0 });
    expect((await http.get("/v1/auth/whoami", { token: key })).status).toBe(200);
  });
});

describe("GET /v1/teams/:teamId/members/:userId/agent-keys", () => {
  const keysOf = (teamId: string, userId: string, token: string) => http.get(`/v1/teams/${teamId}/members/${userId}/agent-keys`, { token });

  it("shows members their own keys and admins anyone's; members get 403 for others", async () => {
    const { team, owner, users } = await teamWith("admin", "member", "member");
    const [admin, member, otherMember] = users as [SignedIn, SignedIn, SignedIn];
    const secret = await agentKey(member, team.id);
    await agentKey(member, member.teamId);

    const own = await keysOf(team.id, member.userId, member.token);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      keys: [{ id: expect.stringMatching(UUID), name: expect.any(String), secret, permissions: expect.arrayContaining(["projects:write"]), created_at: expect.stringMatching(ISO) }],
    });
    for (const reader of [admin, owner]) expect((await keysOf(team.id, member.userId, reader.token)).body).toEqual(own.body);
    expect((await keysOf(team.id, admin.userId, owner.token)).body).toEqual({ keys: [] });
    expect((await keysOf(team.id, owner.userId, owner.token)).body).toEqual({ keys: [] });

    const denied = await keysOf(team.id, member.userId, otherMember.token);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(anError);
    expect((await keysOf(team.id, admin.userId, member.token)).status).toBe(403);

    const outsider = await signIn(http, service.outbox);
    expect((await keysOf(team.id, member.userId, outsider.token)).status).toBe(404);
    expect((await keysOf(team.id, outsider.userId, outsider.token)).status).toBe(404);
    expect((await keysOf(team.id, outsider.userId, owner.token)).status).toBe(404);
  });
});

describe("credentials", () => {
  it("answers 403 to agent keys and 401 without credentials on every team route", async () => {
    const { team, owner, users } = await teamWith("member");
    const [member] = users as [SignedIn];
    const key = (await http.post("/v1/auth/default-agent-key", { team_id: team.id }, { token: owner.token })).body.secret as string;
    expect(key).toMatch(/^svc_agent_/);
    const calls: [string, string, unknown?][] = [
      ["POST", "/v1/teams", { name: "By key", slug: uniqueSlug("key") }],
      ["GET", `/v1/teams/${team.id}`],
      ["PATCH", `/v1/teams/${team.id}`, { name: "By key" }],
      ["DELETE", `/v1/teams/${team.id}`],
      ["GET", `/v1/teams/${team.id}/members`],
      ["GET", `/v1/teams/${team.id}/members/${owner.userId}/agent-keys`],
      ["PATCH", `/v1/teams/${team.id}/members/${member.userId}`, { role: "admin" }],
      ["DELETE", `/v1/teams/${team.id}/members/${member.userId}`],
      ["DELETE", `/v1/teams/${team.id}/members/${member.userId}?revoke_agent_keys=true`],
    ];
    for (const [method, path, body] of calls) {
      const byKey = await http.call(method, path, { token: key, body });
      expect(byKey.status, `${method} ${path}`).toBe(403);
      expect(byKey.body).toEqual(anError);
      expect((await http.call(method, path, { body })).status, `${method} ${path}`).toBe(401);
    }
    const read = await http.get(`/v1/teams/${team.id}`, { token: owner.token });
    expect(read.body.name).toBe(team.name);
    expect(read.body.members.map((row: { role: string }) => row.role)).toEqual(["owner", "member"]);
    expect((await http.get("/v1/auth/whoami", { token: key })).status).toBe(200);
  });
});
