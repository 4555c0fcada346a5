import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "slonik";
import type { Client } from "../support/http.ts";
import { invitationToken as mailedToken } from "../support/outbox.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, uniqueEmail, type SignedIn } from "../support/users.ts";

let service: TestService;
let http: Client;
let owner: SignedIn;

const invitationToken = (email: string, previous?: string) => mailedToken(service.outbox, email, previous);

const invite = (teamId: string, body: object, token: string) => http.post(`/v1/teams/${teamId}/invitations`, body, { token });

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
});
afterAll(async () => stopTestService(service));

describe("invitations", () => {
  it("invites by email, mails the token, shows the public view and lets the invitee accept", async () => {
    const email = uniqueEmail("invitee");
    const created = await invite(owner.teamId, { email }, owner.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      team_id: owner.teamId,
      email,
      role: "member",
      invited_by: { user_id: owner.userId, email: owner.email, name: expect.any(String) },
      accepted_at: null,
    });
    const week = Date.parse(created.body.expires_at) - Date.parse(created.body.created_at);
    expect(Math.abs(week - 7 * 24 * 3600 * 1000)).toBeLessThan(5_000);

    const listed = await http.get(`/v1/teams/${owner.teamId}/invitations`, { token: owner.token });
    expect(listed.body.invitations.map((i: { id: string }) => i.id)).toContain(created.body.id);
    expect((await http.get(`/v1/teams/${owner.teamId}`, { token: owner.token })).body.pending_invitations).toHaveLength(1);

    const token = await invitationToken(email);
    const view = await http.get(`/v1/invites/${token}`);
    expect(view.body).toEqual({
      team_name: expect.any(String),
      team_slug: expect.any(String),
      role: "member",
      email,
      invited_by_name: expect.any(String),
      expires_at: created.body.expires_at,
    });

    const stranger = await signIn(http, service.outbox);
    expect((await http.post("/v1/invites/accept", { token }, { token: stranger.token })).status).toBe(403);

    const invitee = await signIn(http, service.outbox, email);
    const accepted = await http.post("/v1/invites/accept", { token }, { token: invitee.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ team_id: owner.teamId, team_name: expect.any(String), role: "member" });
    const members = await http.get(`/v1/teams/${owner.teamId}/members`, { token: owner.token });
    expect(members.body.members).toContainEqual(expect.objectContaining({ user_id: invitee.userId, role: "member" }));

    expect((await http.get(`/v1/invites/${token}`)).status).toBe(410);
    expect((await http.post("/v1/invites/accept", { token }, { token: invitee.token })).status).toBe(410);
    expect((await invite(owner.teamId, { email }, owner.token)).status).toBe(409);
  });

  it("re-inviting a pending email regenerates the token and keeps one invitation", async () => {
    const email = uniqueEmail("resend");
    const first = await invite(owner.teamId, { email, role: "admin" }, owner.token);
    const firstToken = await invitationToken(email);
    const second = await invite(owner.teamId, { email, role: "admin" }, owner.token);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect(Date.parse(second.body.expires_at)).toBeGreaterThanOrEqual(Date.parse(first.body.expires_at));
    const secondToken = await invitationToken(email, firstToken);
    expect(secondToken).not.toBe(firstToken);
    expect((await http.get(`/v1/invites/${firstToken}`)).status).toBe(404);
    expect((await http.get(`/v1/invites/${secondToken}`)).status).toBe(200);
  });

  it("answers 410 for an expired invitation", async () => {
    const email = uniqueEmail("expired");
    const created = await invite(owner.teamId, { email }, owner.token);
    const token = await invitationToken(email);
    await service.pool.query(sql.unsafe`update invitations set expires_at = now() - interval '1 minute' where id = ${created.body.id}`);
    expect((await http.get(`/v1/invites/${token}`)).status).toBe(410);
    const invitee = await signIn(http, service.outbox, email);
    expect((await http.post("/v1/invites/accept", { token }, { token: invitee.token })).status).toBe(410);
  });

  it("revokes with a hard delete; only admins invite and only owners invite owners", async () => {
    const email = uniqueEmail("revoked");
    const created = await invite(owner.teamId, { email }, owner.token);
    const token = await invitationToken(email);
    expect((await http.delete(`/v1/teams/${owner.teamId}/invitations/${created.body.id}`, { token: owner.token })).body).toEqual({ deleted: true });
    expect((await http.get(`/v1/invites/${token}`)).status).toBe(404);
    expect((await http.delete(`/v1/teams/${owner.teamId}/invitations/${created.body.id}`, { token: owner.token })).status).toBe(404);

    const adminEmail = uniqueEmail("admin");
    await invite(owner.teamId, { email: adminEmail, role: "admin" }, owner.token);
    const admin = await signIn(http, service.outbox, adminEmail);
    await http.post("/v1/invites/accept", { token: await invitationToken(adminEmail) }, { token: admin.token });
    expect((await invite(owner.teamId, { email: uniqueEmail(), role: "owner" }, admin.token)).status).toBe(403);
    expect((await invite(owner.teamId, { email: uniqueEmail(), role: "member" }, admin.token)).status).toBe(201);

    const outsider = await signIn(http, service.outbox);
    expect((await invite(owner.teamId, { email: uniqueEmail() }, outsider.token)).status).toBe(404);
    expect((await invite(owner.teamId, { email: "nope" }, owner.token)).status).toBe(400);
    expect((await invite(owner.teamId, { email: uniqueEmail(), role: "boss" }, owner.token)).status).toBe(400);
  });
});
