/**
 * The shape of every aggregate's rules: `decide` turns a command and the current state into the
 * facts to append (or throws a DomainError), `evolve` folds one fact into the state, and
 * `initialState` is the state before the first fact. Both functions are pure: time and ids come
 * in with the command. The API loads the state from a read model (see apps/commands/command-handler.ts);
 * tests fold facts with `evolve` (test/support/decider.ts).
 */
export type Decider<State, Command, Fact> = {
  initialState: State;
  decide: (state: State, command: Command) => Fact[];
  evolve: (state: State, fact: Fact) => State;
};
