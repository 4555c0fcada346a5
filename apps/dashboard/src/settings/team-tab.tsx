import { useSession } from "../session/session.tsx";
import { Loaded } from "../ui/states.tsx";
import { Invitations } from "./invitations.tsx";
import { Members } from "./members.tsx";
import { useTeamDetail } from "./queries.ts";

/** Members and their roles, and the invitations still open: one request for both. */
export function TeamTab() {
  const { user } = useSession();
  const team = useTeamDetail();
  return (
    <Loaded query={team} label="Loading the team">
      {(detail) => {
        const myRole = detail.members.find((member) => member.user_id === user.id)?.role ?? "member";
        return (
          <div className="settings-columns">
            <Members members={detail.members} myRole={myRole} />
            <Invitations invitations={detail.pending_invitations} myRole={myRole} />
          </div>
        );
      }}
    </Loaded>
  );
}
