import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { ConfirmButton } from "./confirm-button.tsx";
import { FormError } from "./form-error.tsx";
import { formatDate } from "./format.ts";
import { keys, useRefresh, type Member, type Role } from "./queries.ts";
import { grantable, mayManage, ROLE_LABELS, ROLES } from "./roles.ts";

export function Members({ members, myRole }: { members: Member[]; myRole: Role }) {
  return (
    <section className="card stack" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ul className="rows">
        {members.map((member) => (
          <MemberRow key={member.user_id} member={member} myRole={myRole} />
        ))}
      </ul>
      <p className="muted">Owners manage anyone; admins manage members. Nobody changes their own role, and a team keeps at least one owner.</p>
    </section>
  );
}

/**
 * A member's role is changed by picking another one: the change is sent at once and the list shows
 * what the API stored; a refusal (the role rules) is shown under the member, in the API's words.
 */
function MemberRow({ member, myRole }: { member: Member; myRole: Role }) {
  const { user, team } = useSession();
  const refresh = useRefresh();
  const [revokeKeys, setRevokeKeys] = useState(false);
  const isMe = member.user_id === user.id;
  const who = member.name || member.email;

  const changeRole = useMutation({
    mutationFn: (role: Role) => unwrap(api.PATCH("/v1/teams/{teamId}/members/{userId}", { params: { path: { teamId: team.id, userId: member.user_id } }, body: { role } })),
    onSettled: () => refresh(keys.team(team.id)),
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE("/v1/teams/{teamId}/members/{userId}", {
          params: { path: { teamId: team.id, userId: member.user_id }, query: revokeKeys ? { revoke_agent_keys: "true" } : {} },
        }),
      ),
    onSuccess: () => refresh(keys.team(team.id), keys.apiKeys(team.id)),
  });
  // Roles the signed-in user could not give are still listed when the member holds one, so the select shows the truth.
  const offered = ROLES.filter((role) => role === member.role || grantable(myRole).includes(role));
  const manageable = !isMe && mayManage(myRole, member.role);

  return (
    <li className="row" data-member={member.email}>
      <div className="row-main">
        <span className="row-title">
          {who} {isMe && <span className="pill">you</span>}
        </span>
        <span className="muted">
          {member.email} · joined {formatDate(member.joined_at)}
        </span>
        <FormError error={changeRole.error ?? remove.error} />
      </div>
      <label className="role">
        <span className="sr-only">Role of {member.email}</span>
        <select value={member.role} disabled={isMe || changeRole.isPending} onChange={(event) => changeRole.mutate(event.target.value as Role)}>
          {offered.map((role) => (
            <option key={role} value={role}>
              {ROLE_LABELS[role]}
            </option>
          ))}
        </select>
      </label>
      {(manageable || isMe) && (
        <ConfirmButton
          label={isMe ? "Leave" : "Remove"}
          name={isMe ? "Leave the team" : `Remove ${member.email}`}
          question={isMe ? `Leave ${team.name}?` : `Remove ${who} from ${team.name}?`}
          confirmLabel={isMe ? "Yes, leave" : "Yes, remove"}
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
          extra={
            <label className="check">
              <input type="checkbox" checked={revokeKeys} onChange={(event) => setRevokeKeys(event.target.checked)} />
              Also revoke {isMe ? "my" : "their"} agent keys
            </label>
          }
        />
      )}
    </li>
  );
}
