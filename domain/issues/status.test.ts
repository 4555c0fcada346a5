import { describe, expect, it } from "vitest";
import { canMove, ISSUE_STATUSES, REQUESTABLE_STATUSES } from "./status.ts";

/** The SPEC's "Issue status" table, written out as pairs. */
const ALLOWED = new Set([
  "new>in_progress", "new>resolved", "new>silenced", "new>snoozed",
  "in_progress>new", "in_progress>resolved", "in_progress>silenced", "in_progress>snoozed",
  "resolved>new", "resolved>silenced", "resolved>snoozed",
  "regressed>in_progress", "regressed>resolved", "regressed>silenced", "regressed>snoozed",
  "silenced>new", "silenced>in_progress", "silenced>resolved", "silenced>snoozed",
  "snoozed>new", "snoozed>in_progress", "snoozed>resolved", "snoozed>silenced",
]);

describe("canMove", () => {
  for (const from of ISSUE_STATUSES) {
    for (const to of REQUESTABLE_STATUSES) {
      const allowed = ALLOWED.has(`${from}>${to}`);
      it(`${from} → ${to} is ${allowed ? "allowed" : "refused"}`, () => expect(canMove(from, to)).toBe(allowed));
    }
  }

  it("never offers regressed as a target", () => {
    expect(REQUESTABLE_STATUSES).not.toContain("regressed");
  });
});
