import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, notFound } from "../shared/errors.ts";

/** A user account as its decisions need it, with the active teams the user belongs to. */
export type UserState = {
  userId: string;
  registered: boolean;
  email: string;
  name: string;
  /** In the order the user joined them; a rename is recorded in each of these teams' audit logs. */
  teamIds: readonly string[];
};

export type UserCommand =
  /** The id and the default name are chosen by the caller, which also claims the email first. */
  | { type: "RegisterUser"; userId: string; email: string; name: string }
  | { type: "RenameUser"; name: string };

function decide(state: UserState, command: UserCommand): DomainEvent[] {
  switch (command.type) {
    case "RegisterUser":
      if (state.registered) throw conflict("this account already exists");
      return [{ type: "UserRegistered", v: 1, user_id: command.userId, email: command.email, name: command.name }];
    case "RenameUser":
      if (!state.registered) throw notFound("user");
      if (command.name === state.name) return [];
      return [{ type: "UserRenamed", v: 1, user_id: state.userId, name: command.name, previous_name: state.name, team_ids: [...state.teamIds] }];
  }
}

function evolve(state: UserState, fact: DomainEvent): UserState {
  switch (fact.type) {
    case "UserRegistered":
      return { userId: fact.user_id, registered: true, email: fact.email, name: fact.name, teamIds: [] };
    case "UserRenamed":
      return { ...state, name: fact.name };
    // Memberships are facts of the teams: the ones naming this user change the user's teams.
    case "MemberAdded":
      if (fact.user_id !== state.userId || state.teamIds.includes(fact.team_id)) return state;
      return { ...state, teamIds: [...state.teamIds, fact.team_id] };
    case "MemberRemoved":
      if (fact.user_id !== state.userId) return state;
      return { ...state, teamIds: state.teamIds.filter((teamId) => teamId !== fact.team_id) };
    case "TeamDeleted":
      return { ...state, teamIds: state.teamIds.filter((teamId) => teamId !== fact.team_id) };
    default:
      return state;
  }
}

/** A user's own account: registered once, renamed freely. */
export const userDecider: Decider<UserState, UserCommand, DomainEvent> = {
  initialState: { userId: "", registered: false, email: "", name: "", teamIds: [] },
  decide,
  evolve,
};
