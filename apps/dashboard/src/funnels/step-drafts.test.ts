import { describe, expect, it } from "vitest";
import { moved, newDraft, stepOf, stepsProblem } from "./step-drafts.ts";

describe("a funnel's steps as edited", () => {
  it("become the API's steps, leaving out empty filter fields", () => {
    expect(stepOf(newDraft({ name: " Signed up ", stepName: "signup", screenName: "  " }))).toEqual({ name: "Signed up", event_filter: { step_name: "signup" } });
    expect(stepOf(newDraft({ name: "Paywall", screenName: "Paywall" }))).toEqual({ name: "Paywall", event_filter: { screen_name: "Paywall" } });
  });

  it("name the first step that cannot be saved", () => {
    expect(stepsProblem([])).toMatch(/at least one/);
    expect(stepsProblem([newDraft({ name: "A", stepName: "a" }), newDraft({ stepName: "b" })])).toBe("Step 2 needs a name.");
    expect(stepsProblem([newDraft({ name: "A" })])).toMatch(/^Step 1 needs a step name/);
    expect(stepsProblem([newDraft({ name: "A", stepName: "a" })])).toBeUndefined();
  });

  it("move one place at a time and stay put at the ends", () => {
    expect(moved(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(moved(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(moved(["a", "b", "c"], 0, -1)).toEqual(["a", "b", "c"]);
    expect(moved(["a", "b", "c"], 2, 1)).toEqual(["a", "b", "c"]);
  });
});
