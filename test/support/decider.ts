import { expect } from "vitest";
import type { Decider } from "../../domain/shared/decider.ts";
import { DomainError, type ErrorCode } from "../../domain/shared/errors.ts";

/**
 * Decider tests as given / when / then:
 *
 *   given(teamDecider)(teamCreated, memberAdded).when(removeMember).then(memberRemoved);
 *   given(teamDecider)(teamCreated).when(removeLastOwner).thenFails("conflict");
 *
 * The given facts are folded with `evolve` from `initialState`, exactly as the state the command
 * would be decided on. `then` compares the decided facts with `toEqual`, so an expected fact may
 * hold asymmetric matchers (`expect.any(String)` for a generated id); `then()` with no facts
 * expects the command to change nothing. Nothing is awaited: deciders are pure.
 */
export function given<State, Command, Fact>(decider: Decider<State, Command, Fact>) {
  return (...history: Fact[]) => ({
    when: (command: Command) => {
      const decideNow = () => decider.decide(history.reduce((state, fact) => decider.evolve(state, fact), decider.initialState), command);
      return {
        /** Asserts the decided facts; any error thrown by `decide` fails the test as it is. */
        then: (...expected: Fact[]): void => {
          expect(decideNow()).toEqual(expected);
        },
        /** Asserts that `decide` refuses with a DomainError of `code`; returns it for checks of its message or extra. */
        thenFails: (code: ErrorCode): DomainError => {
          let decided: Fact[];
          try {
            decided = decideNow();
          } catch (error) {
            // Anything but a DomainError is a bug in the decider, not a refusal: let it surface whole.
            if (!(error instanceof DomainError)) throw error;
            expect(error.code, `refused with "${error.message}"`).toBe(code);
            return error;
          }
          return expect.fail(`expected a refusal with code "${code}", but decide returned ${JSON.stringify(decided)}`);
        },
      };
    },
  });
}
