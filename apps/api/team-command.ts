import type { DomainEvent } from "../../domain/events.ts";
import type { Decider } from "../../domain/shared/decider.ts";
import { actorOf, authorize, type Rule } from "./auth/access.ts";
import type { Principal } from "./auth/principal.ts";
import { handleCommand } from "../commands/command-handler.ts";
import type { ApiDeps } from "./deps.ts";

export type TeamCommand<State, Command> = {
  teamId: string;
  decider: Decider<State, Command, DomainEvent>;
  /** Reads the decider's state of the team from the read model. */
  load: (teamId: string) => Promise<State>;
  command: Command;
  /**
   * The right the caller needs in the team, checked on every attempt before the state is read (a
   * role can change between two), and the resource a foreign team's 404 names. Without it, the
   * decider itself judges the caller's role (team membership rules).
   */
  access?: { rule: Rule; resource: string };
};

/**
 * A command on a team's subject, which orders the team's whole control plane (members,
 * invitations, projects, apps, keys, definitions), made by `caller`.
 * @throws DomainError from the access check or the decider; unavailable as handleCommand does
 */
export function teamCommand<State, Command>(deps: ApiDeps, caller: Principal, input: TeamCommand<State, Command>) {
  const { teamId, access } = input;
  return handleCommand(deps, {
    aggregate: { type: "team", id: teamId },
    decider: input.decider,
    load: async () => {
      if (access) await authorize(deps, caller, teamId, access.rule, access.resource);
      return input.load(teamId);
    },
    command: input.command,
    actor: actorOf(caller),
  });
}
