import { describe, expect, it } from "vitest";
import { closedStepsFromOrder, closedStepsReached, disjointSteps, type StepEvent } from "./walk.ts";

const e = (step_name: string, time: number, screen_name: string | null = null): StepEvent => ({ step_name, screen_name, time });
const steps = [{ step_name: "a" }, { step_name: "b" }, { step_name: "c", screen_name: "S" }];

describe("closedStepsReached", () => {
  it("follows the steps in time order, whatever order the events come in", () => {
    expect(closedStepsReached([e("c", 3, "S"), e("a", 1), e("b", 2)], steps)).toBe(3);
  });

  it("needs each step strictly after the previous one", () => {
    expect(closedStepsReached([e("a", 1), e("b", 1)], steps)).toBe(1);
    expect(closedStepsReached([e("b", 0), e("a", 1), e("b", 2)], steps)).toBe(2);
  });

  it("matches every field a step names and stops at a skipped step", () => {
    expect(closedStepsReached([e("a", 1), e("b", 2), e("c", 3, "T")], steps)).toBe(2);
    expect(closedStepsReached([e("a", 1), e("c", 3, "S")], steps)).toBe(1);
    expect(closedStepsReached([e("b", 1)], steps)).toBe(0);
  });
});

describe("disjointSteps", () => {
  it("holds when every pair of steps differs in a field both name", () => {
    expect(disjointSteps([{ step_name: "a" }, { step_name: "b" }, { step_name: "c" }])).toBe(true);
    expect(disjointSteps([{ step_name: "a", screen_name: "S" }, { step_name: "b", screen_name: "S" }])).toBe(true);
    expect(disjointSteps([{ step_name: "a", screen_name: "S" }, { step_name: "a", screen_name: "T" }])).toBe(true);
  });

  it("fails when one event could match two steps", () => {
    expect(disjointSteps([{ step_name: "a" }, { screen_name: "S" }])).toBe(false);
    expect(disjointSteps([{ step_name: "a" }, { step_name: "b" }, { step_name: "a" }])).toBe(false);
    expect(disjointSteps([{ step_name: "a", screen_name: "S" }, { step_name: "a" }])).toBe(false);
  });
});

describe("closedStepsFromOrder", () => {
  // Steps a..e; each case lists the events, the letters worked out from the first (f) and last (l)
  // times, and the count closedStepsReached gives for the same events.
  const five = ["a", "b", "c", "d", "e"].map((step_name) => ({ step_name }));

  it("takes the later event of a step done before and after the previous one, then goes on", () => {
    // a 10; b 5 and 20; c 25; d 30; e 40. Letters: b: l>f(a) = 4 "E"; c and d: all four = 15 "P";
    // e (last, no first time): l>f(d) + l>l(d) = 12 "M". Step b settles at 20, then c, d, e follow.
    const events = [e("a", 10), e("b", 5), e("b", 20), e("c", 25), e("d", 30), e("e", 40)];
    expect(closedStepsFromOrder("EPPM", 1)).toBe(5);
    expect(closedStepsReached(events, five)).toBe(5);
  });

  it("stops where neither time of a step follows the previous step's", () => {
    // a 10; b 5 and 20; c 15: c's only time is after f(b) but not after l(b): 1 + 4 = "F"; d 30
    // follows all: "P"; no e: "A".
    const events = [e("a", 10), e("b", 5), e("b", 20), e("c", 15), e("d", 30)];
    expect(closedStepsFromOrder("EFPA", 1)).toBe(2);
    expect(closedStepsReached(events, five)).toBe(2);
  });

  it("moves to a step's last time when only that follows, and back to first times", () => {
    // a 10; b 5, 20; c 18, 30 (only l(c) follows l(b): 1 + 4 + 8 = "N"); d 35 (after both: "P");
    // e 33 (last step: l(e) > f(d) no, > l(d) no: "A"). Walk: a 10, b 20, c 30, d 35, e none.
    const events = [e("a", 10), e("b", 5), e("b", 20), e("c", 18), e("c", 30), e("d", 35), e("e", 33)];
    expect(closedStepsFromOrder("ENPA", 1)).toBe(4);
    expect(closedStepsReached(events, five)).toBe(4);
  });

  it("starts at a later middle step and reads only the letters after it", () => {
    // a 1; b 2 ("F"); c 1 and 3: only l(c) follows b ("M"), the query sends reached -2. d 3 ties
    // l(c): only its times after f(c) count, 1 + 4 = "F"; e 9: "M". From l(c) nothing follows.
    const events = [e("a", 1), e("b", 2), e("c", 1), e("c", 3), e("d", 3), e("e", 9)];
    expect(closedStepsFromOrder("FMFM", 2)).toBe(3);
    expect(closedStepsReached(events, five)).toBe(3);
  });
});
