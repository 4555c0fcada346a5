import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { TeamInvitations } from "../../domain/invitations/decider.ts";
import { ROLES } from "../../domain/shared/roles.ts";

const invitationRow = z.object({
  id: z.string(),
  team_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  accepted_at: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
  inviter_id: z.string(),
  inviter_name: z.string().nullable(),
  inviter_email: z.string().nullable(),
  team_name: z.string(),
  team_slug: z.string(),
});
export type InvitationRow = z.infer<typeof invitationRow>;

const select = sql.fragment`
  select i.id, i.team_id, i.email, i.role, i.accepted_at, i.expires_at, i.created_at,
         i.invited_by as inviter_id, u.name as inviter_name, u.email as inviter_email,
         t.name as team_name, t.slug as team_slug
    from invitations i
    join teams t on t.id = i.team_id and t.deleted_at is null
    left join users u on u.id = i.invited_by`;

/** The API shape of an invitation. */
export const toInvitation = (row: InvitationRow) => ({
  id: row.id,
  team_id: row.team_id,
  email: row.email,
  role: row.role,
  invited_by: { user_id: row.inviter_id, name: row.inviter_name, email: row.inviter_email },
  expires_at: row.expires_at,
  accepted_at: row.accepted_at,
  created_at: row.created_at,
});

export const invitationById = (db: CommonQueryMethods, teamId: string, id: string) =>
  db.maybeOne(sql.type(invitationRow)`${select} where i.team_id = ${teamId} and i.id = ${id}`);

export const invitationByTokenHash = (db: CommonQueryMethods, tokenHash: string) =>
  db.maybeOne(sql.type(invitationRow)`${select} where i.token_hash = ${tokenHash}`);

/** Pending: neither accepted nor expired. */
export const pendingInvitations = (db: CommonQueryMethods, teamId: string) =>
  db.any(sql.type(invitationRow)`
    ${select} where i.team_id = ${teamId} and i.accepted_at is null and i.expires_at > now()
    order by i.created_at, i.id`);

/** A team's invitations and members as its invitations decider needs them (domain/invitations/decider.ts). */
export async function teamInvitations(db: CommonQueryMethods, teamId: string): Promise<TeamInvitations> {
  const active = await db.exists(sql.unsafe`select 1 from teams where id = ${teamId} and deleted_at is null`);
  if (!active) return { teamId, active: false, members: new Map(), invitations: [] };
  const members = await db.any(sql.type(z.object({ user_id: z.string(), role: z.enum(ROLES), email: z.string() }))`
    select m.user_id, m.role, u.email from team_members m join users u on u.id = m.user_id where m.team_id = ${teamId}`);
  const invitations = await db.any(sql.type(
    z.object({ id: z.string(), email: z.string(), role: z.enum(ROLES), token_hash: z.string(), accepted: z.boolean(), expires_at: z.string() }),
  )`
    select id, email, role, token_hash, accepted_at is not null as accepted, expires_at from invitations
     where team_id = ${teamId} order by created_at, id`);
  return {
    teamId,
    active: true,
    members: new Map(members.map((member) => [member.user_id, { role: member.role, email: member.email }])),
    invitations: invitations.map((row) => ({
      id: row.id,
      email: row.email,
      role: row.role,
      tokenHash: row.token_hash,
      accepted: row.accepted,
      expiresAt: row.expires_at,
    })),
  };
}
