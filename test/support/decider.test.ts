import { describe, expect, it } from "vitest";
import type { Decider } from "../../domain/shared/decider.ts";
import { conflict, DomainError, notFound } from "../../domain/shared/errors.ts";
import { given } from "./decider.ts";

/** A door that can be locked with a key; every lock gets a fresh key id, as decided ids do. */
type DoorFact = { type: "Locked"; key_id: string } | { type: "Unlocked"; key_id: string };
type DoorCommand = { type: "Lock"; key_id: string } | { type: "Unlock"; key_id: string } | { type: "Explode" };
type DoorState = { key: string | null };

const door: Decider<DoorState, DoorCommand, DoorFact> = {
  initialState: { key: null },
  evolve: (_state, fact) => ({ key: fact.type === "Locked" ? fact.key_id : null }),
  decide: (state, command) => {
    switch (command.type) {
      case "Lock":
        if (state.key !== null) throw conflict("already locked");
        return [{ type: "Locked", key_id: command.key_id }];
      case "Unlock":
        if (state.key === null) return [];
        if (state.key !== command.key_id) throw notFound("key");
        return [{ type: "Unlocked", key_id: command.key_id }];
      case "Explode":
        throw new TypeError("not a door command");
    }
  },
};

const locked = (key_id: string): DoorFact => ({ type: "Locked", key_id });

describe("given / when / then", () => {
  it("decides on the state folded from the given facts, in order", () => {
    given(door)().when({ type: "Lock", key_id: "k1" }).then(locked("k1"));
    given(door)(locked("k1")).when({ type: "Unlock", key_id: "k1" }).then({ type: "Unlocked", key_id: "k1" });
    given(door)(locked("k1"), { type: "Unlocked", key_id: "k1" }).when({ type: "Lock", key_id: "k2" }).then(locked("k2"));
  });

  it("expects no facts from then() and takes asymmetric matchers for decided values", () => {
    given(door)().when({ type: "Unlock", key_id: "k1" }).then();
    given(door)().when({ type: "Lock", key_id: "k9" }).then({ type: "Locked", key_id: expect.stringMatching(/^k\d$/) });
  });

  it("fails then when the decided facts differ, or when decide throws", () => {
    expect(() => given(door)().when({ type: "Lock", key_id: "k1" }).then(locked("k2"))).toThrow(/k2/);
    expect(() => given(door)().when({ type: "Lock", key_id: "k1" }).then()).toThrow();
    expect(() => given(door)(locked("k1")).when({ type: "Lock", key_id: "k2" }).then(locked("k2"))).toThrow(DomainError);
    expect(() => given(door)().when({ type: "Explode" }).then()).toThrow(TypeError);
  });

  it("passes thenFails on a refusal with the code, and returns the error", () => {
    expect(given(door)(locked("k1")).when({ type: "Lock", key_id: "k2" }).thenFails("conflict").message).toBe("already locked");
    given(door)(locked("k1")).when({ type: "Unlock", key_id: "k2" }).thenFails("not_found");
  });

  it("fails thenFails when decide succeeds, refuses with another code, or throws something else", () => {
    expect(() => given(door)().when({ type: "Lock", key_id: "k1" }).thenFails("conflict")).toThrow(/expected a refusal with code "conflict"/);
    expect(() => given(door)(locked("k1")).when({ type: "Lock", key_id: "k2" }).thenFails("forbidden")).toThrow(/already locked/);
    expect(() => given(door)().when({ type: "Explode" }).thenFails("invalid")).toThrow(TypeError);
  });
});
