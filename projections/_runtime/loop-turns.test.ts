import { describe, expect, it } from "vitest";
import { LoopTurns } from "./loop-turns.ts";

describe("LoopTurns", () => {
  it("gives the event loop a turn once the bytes decoded reach the budget, and not before", async () => {
    const turns = new LoopTurns(100);
    let otherWorkRan = false;
    setImmediate(() => (otherWorkRan = true));
    await turns.after(60);
    expect(otherWorkRan).toBe(false);
    await turns.after(60);
    expect(otherWorkRan).toBe(true);
  });

  it("counts from zero again after a turn", async () => {
    const turns = new LoopTurns(100);
    await turns.after(100);
    let otherWorkRan = false;
    setImmediate(() => (otherWorkRan = true));
    await turns.after(99);
    expect(otherWorkRan).toBe(false);
  });
});
