import { describe, expect, it } from "vitest";
import { closedStepsReached, type StepEvent } from "./walk.ts";

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
