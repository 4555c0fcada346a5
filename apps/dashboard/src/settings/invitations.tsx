import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { Empty } from "../ui/states.tsx";
import { ConfirmButton } from "./confirm-button.tsx";
import { FormError } from "./form-error.tsx";
import { formatDate } from "./format.ts";
import { keys, useRefresh, type Role, type TeamDetail } from "./queries.ts";
import { grantable, ROLE_LABELS } from "./roles.ts";

type Invitation = TeamDetail["pending_invitations"][number];

/** Inviting by email (the invitee gets a mail with a link), and the invitations not yet accepted. */
export function Invitations({ invitations, myRole }: { invitations: Invitation[]; myRole: Role }) {
  const { team } = useSession();
  const refresh = useRefresh();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST("/v1/teams/{teamId}/invitations", { params: { path: { teamId: team.id } }, body: { email: email.trim(), role } })),
    onSuccess: async () => {
      setEmail("");
      await refresh(keys.team(team.id));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  // Members cannot invite; they still see the form's roles as an admin would, and the API's refusal.
  const roles = grantable(myRole === "member" ? "admin" : myRole);

  return (
    <section className="card stack" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <form className="stack" onSubmit={submit}>
        <div className="fields">
          <div className="field">
            <label htmlFor="invite-email">Email</label>
            <input id="invite-email" type="email" required value={email} onChange={(event) => setEmail(event.target.value)} autoComplete="off" />
          </div>
          <div className="field">
            <label htmlFor="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
              {roles.map((option) => (
                <option key={option} value={option}>
                  {ROLE_LABELS[option]}
                </option>
              ))}
            </select>
          </div>
        </div>
        <FormError error={invite.error} />
        <div className="actions">
          <button type="submit" disabled={invite.isPending}>
            {invite.isPending ? "Sending…" : "Send invitation"}
          </button>
          {invite.isSuccess && (
            <span className="muted" role="status">
              Sent to {invite.data.email}.
            </span>
          )}
        </div>
      </form>
      <h3>Pending</h3>
      {invitations.length === 0 ? (
        <Empty>No open invitations.</Empty>
      ) : (
        <ul className="rows">
          {invitations.map((invitation) => (
            <InvitationRow key={invitation.id} invitation={invitation} />
          ))}
        </ul>
      )}
      <p className="muted">An invitation is valid for 7 days; inviting the same address again sends a new link.</p>
    </section>
  );
}

function InvitationRow({ invitation }: { invitation: Invitation }) {
  const { team } = useSession();
  const refresh = useRefresh();
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE("/v1/teams/{teamId}/invitations/{invitationId}", { params: { path: { teamId: team.id, invitationId: invitation.id } } })),
    onSuccess: () => refresh(keys.team(team.id)),
  });
  return (
    <li className="row" data-invitation={invitation.email}>
      <div className="row-main">
        <span className="row-title">
          {invitation.email} <span className="pill">{ROLE_LABELS[invitation.role]}</span>
        </span>
        <span className="muted">
          invited by {invitation.invited_by.name || invitation.invited_by.email} · expires {formatDate(invitation.expires_at)}
        </span>
        <FormError error={revoke.error} />
      </div>
      <ConfirmButton
        label="Revoke"
        name={`Revoke invitation for ${invitation.email}`}
        question={`Revoke the invitation for ${invitation.email}?`}
        confirmLabel="Yes, revoke"
        pending={revoke.isPending}
        onConfirm={() => revoke.mutate()}
      />
    </li>
  );
}
