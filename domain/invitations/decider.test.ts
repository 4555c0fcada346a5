import { describe, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import type { Role } from "../shared/roles.ts";
import { hashInvitationToken, invitationsDecider } from "./decider.ts";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const IN_A_WEEK = "2026-03-08T12:00:00.000Z";

const teamCreated: DomainEvent = { type: "TeamCreated", v: 1, team_id: "team", name: "Team", slug: "team", created_by: "owner", for_new_user: false };
const memberAdded = (userId: string, role: Role): DomainEvent => ({ type: "MemberAdded", v: 1, team_id: "team", user_id: userId, role });
const sent = (type: "InvitationCreated" | "InvitationResent", id: string, email: string, token: string, fields: { role?: Role; expiresAt?: string; by?: string } = {}): DomainEvent => ({
  type,
  v: 1,
  invitation_id: id,
  team_id: "team",
  email,
  role: fields.role ?? "member",
  token,
  token_hash: hashInvitationToken(token),
  invited_by: fields.by ?? "owner",
  expires_at: fields.expiresAt ?? IN_A_WEEK,
});
const invited = (id: string, email: string, token: string, fields?: { role?: Role; expiresAt?: string; by?: string }) => sent("InvitationCreated", id, email, token, fields);
const accepted = (id: string, userId: string, email: string, role: Role = "member"): DomainEvent[] => [
  { type: "InvitationAccepted", v: 1, invitation_id: id, team_id: "team", user_id: userId, email, role },
  memberAdded(userId, role),
];

/** A team with an owner, an admin and a member, then `more` facts. */
const team = (...more: DomainEvent[]) => given(invitationsDecider)(teamCreated, memberAdded("owner", "owner"), memberAdded("admin", "admin"), memberAdded("member", "member"), ...more);

const invite = (actorId: string, email: string, role: Role = "member") => ({ type: "Invite", actorId, invitationId: "i-new", email, role, token: "tok-new", now: NOW }) as const;
const accept = (token: string, userId = "u", userEmail = "ada@example.test") => ({ type: "Accept", token, userId, userEmail, now: NOW }) as const;

describe("Invite", () => {
  it("invites an email with the token's hash and a 7-day expiry", () => {
    team().when(invite("admin", "ada@example.test")).then(invited("i-new", "ada@example.test", "tok-new", { by: "admin" }));
  });

  it("re-sends the open invitation of the email, expired or not, with a new token and a fresh expiry", () => {
    team(invited("i1", "ada@example.test", "tok-1", { expiresAt: "2026-02-01T00:00:00.000Z" }))
      .when(invite("owner", "ada@example.test", "admin"))
      .then(sent("InvitationResent", "i1", "ada@example.test", "tok-new", { role: "admin" }));
  });

  it("makes a new invitation once the earlier one was accepted and its addressee has left", () => {
    team(invited("i1", "ada@example.test", "tok-1"), ...accepted("i1", "u", "ada@example.test"), {
      type: "MemberRemoved",
      v: 1,
      team_id: "team",
      user_id: "u",
      role: "member",
      revoked_agent_key_ids: [],
    })
      .when(invite("owner", "ada@example.test"))
      .then(invited("i-new", "ada@example.test", "tok-new"));
  });

  it("is for admins; outsiders do not see the team", () => {
    team().when(invite("member", "ada@example.test")).thenFails("forbidden");
    team().when(invite("nobody", "ada@example.test")).thenFails("not_found");
  });

  it("lets only owners invite owners", () => {
    team().when(invite("admin", "ada@example.test", "owner")).thenFails("forbidden");
    team().when(invite("owner", "ada@example.test", "owner")).then(invited("i-new", "ada@example.test", "tok-new", { role: "owner" }));
  });

  it("refuses to invite a member again", () => {
    team(invited("i1", "ada@example.test", "tok-1"), ...accepted("i1", "u", "ada@example.test")).when(invite("owner", "ada@example.test")).thenFails("conflict");
  });
});

describe("Revoke", () => {
  it("revokes an invitation with its email", () => {
    team(invited("i1", "ada@example.test", "tok-1"))
      .when({ type: "Revoke", actorId: "admin", invitationId: "i1" })
      .then({ type: "InvitationRevoked", v: 1, invitation_id: "i1", team_id: "team", email: "ada@example.test" });
  });

  it("is for admins, checked before the invitation is looked up", () => {
    team(invited("i1", "ada@example.test", "tok-1")).when({ type: "Revoke", actorId: "member", invitationId: "i1" }).thenFails("forbidden");
    team().when({ type: "Revoke", actorId: "member", invitationId: "missing" }).thenFails("forbidden");
    team().when({ type: "Revoke", actorId: "nobody", invitationId: "missing" }).thenFails("not_found");
  });

  it("answers not found for an invitation that does not exist or was revoked", () => {
    team().when({ type: "Revoke", actorId: "owner", invitationId: "missing" }).thenFails("not_found");
    team(invited("i1", "ada@example.test", "tok-1"), { type: "InvitationRevoked", v: 1, invitation_id: "i1", team_id: "team", email: "ada@example.test" })
      .when({ type: "Revoke", actorId: "owner", invitationId: "i1" })
      .thenFails("not_found");
  });
});

describe("Accept", () => {
  it("adds the invitee with the invitation's role", () => {
    team(invited("i1", "ada@example.test", "tok-1", { role: "admin" })).when(accept("tok-1")).then(...accepted("i1", "u", "ada@example.test", "admin"));
  });

  it("compares the caller's email without regard to case", () => {
    team(invited("i1", "ada@example.test", "tok-1")).when(accept("tok-1", "u", "Ada@Example.test")).then(...accepted("i1", "u", "ada@example.test"));
  });

  it("knows only the current token of a live invitation of an active team", () => {
    team().when(accept("tok-1")).thenFails("not_found");
    team(invited("i1", "ada@example.test", "tok-1"), sent("InvitationResent", "i1", "ada@example.test", "tok-2")).when(accept("tok-1")).thenFails("not_found");
    team(invited("i1", "ada@example.test", "tok-1"), { type: "InvitationRevoked", v: 1, invitation_id: "i1", team_id: "team", email: "ada@example.test" })
      .when(accept("tok-1"))
      .thenFails("not_found");
    team(invited("i1", "ada@example.test", "tok-1"), { type: "TeamDeleted", v: 1, team_id: "team" }).when(accept("tok-1")).thenFails("not_found");
  });

  it("answers gone for an accepted or an expired invitation", () => {
    team(invited("i1", "ada@example.test", "tok-1"), ...accepted("i1", "u", "ada@example.test")).when(accept("tok-1", "v")).thenFails("gone");
    team(invited("i1", "ada@example.test", "tok-1", { expiresAt: NOW.toISOString() })).when(accept("tok-1")).thenFails("gone");
  });

  it("is for the addressee only", () => {
    team(invited("i1", "ada@example.test", "tok-1")).when(accept("tok-1", "u", "eve@example.test")).thenFails("forbidden");
  });

  it("refuses someone already in the team", () => {
    team(invited("i1", "ada@example.test", "tok-1")).when(accept("tok-1", "member", "ada@example.test")).thenFails("conflict");
  });
});
