import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, uniqueEmail, type SignedIn } from "../support/users.ts";

/**
 * Routes under /v1/teams/:teamId name their team in the path, so who may touch the team is settled
 * before the input is read: an outsider learns nothing from a malformed body (404, as for a valid
 * one), while a member is told what is wrong with it (400).
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let member: SignedIn;
let admin: SignedIn;
let outsider: SignedIn;

const TEAM_NOT_FOUND = { status: 404, body: { error: "team not found" } };

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
  admin = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "admin" });
  outsider = await signIn(http, service.outbox);
});
afterAll(async () => stopTestService(service));

/** The three writes whose body a non-member once saw validated, each with a malformed body. */
const badWrites = () => [
  { name: "rename the team", send: (token: string) => http.patch(`/v1/teams/${owner.teamId}`, { name: "" }, { token }) },
  { name: "change a role", send: (token: string) => http.patch(`/v1/teams/${owner.teamId}/members/${admin.userId}`, { role: "boss" }, { token }) },
  { name: "invite", send: (token: string) => http.post(`/v1/teams/${owner.teamId}/invitations`, { email: "nope" }, { token }) },
];

describe("team routes check membership before the body", () => {
  it("answers an outsider's malformed body with 404 team not found", async () => {
    for (const write of badWrites()) expect(await write.send(outsider.token), write.name).toMatchObject(TEAM_NOT_FOUND);
  });

  it("answers a member's malformed body with 400, whatever their role", async () => {
    for (const token of [member.token, owner.token]) {
      for (const write of badWrites()) expect((await write.send(token)).status, write.name).toBe(400);
    }
  });

  it("leaves the role rules to the valid request: a member renaming or inviting gets 403", async () => {
    expect((await http.patch(`/v1/teams/${owner.teamId}`, { name: "Mine" }, { token: member.token })).status).toBe(403);
    expect((await http.post(`/v1/teams/${owner.teamId}/invitations`, { email: uniqueEmail() }, { token: member.token })).status).toBe(403);
    expect(await http.patch(`/v1/teams/${owner.teamId}`, { name: "Theirs" }, { token: outsider.token })).toMatchObject(TEAM_NOT_FOUND);
  });

  it("answers a malformed team id with 400 before any lookup", async () => {
    expect((await http.patch("/v1/teams/not-a-uuid", { name: "" }, { token: outsider.token })).status).toBe(400);
  });
});

describe("audit logs check the key's permission, then the team, then the query", () => {
  const logs = (teamId: string, token: string, query = "") => http.get(`/v1/teams/${teamId}/audit-logs${query}`, { token });
  /** An agent key of the outsider's own team holding only `permissions`. */
  const outsiderKey = async (permissions: string[]): Promise<string> => {
    const created = await http.post("/v1/auth/keys", { name: "agent", key_type: "agent", team_id: outsider.teamId, permissions }, { token: outsider.token });
    expect(created.status).toBe(201);
    return created.body.api_key.secret;
  };

  it("refuses a key without audit_logs:read with 403 whatever team it names, before any lookup", async () => {
    const key = await outsiderKey(["projects:read"]);
    const foreign = await logs(owner.teamId, key);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe("requires the audit_logs:read permission");
    expect((await logs(outsider.teamId, key)).status).toBe(403);
  });

  it("answers a key of another team holding audit_logs:read with 404, even for a malformed query", async () => {
    const key = await outsiderKey(["audit_logs:read"]);
    expect(await logs(owner.teamId, key)).toMatchObject(TEAM_NOT_FOUND);
    expect(await logs(owner.teamId, key, "?limit=0")).toMatchObject(TEAM_NOT_FOUND);
    expect((await logs(outsider.teamId, key, "?limit=0")).status).toBe(400);
  });

  it("answers users by membership and role before the query", async () => {
    expect(await logs(owner.teamId, outsider.token, "?limit=0")).toMatchObject(TEAM_NOT_FOUND);
    expect((await logs(owner.teamId, member.token, "?limit=0")).status).toBe(403);
    expect((await logs(owner.teamId, admin.token, "?limit=0")).status).toBe(400);
    expect((await logs(owner.teamId, admin.token)).status).toBe(200);
  });
});
