import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { derivedId } from "../shared/ids.ts";
import { issuesDecider, type ErrorEvent, type IssueCommand } from "./decider.ts";
import { groupingOf } from "./fingerprint.ts";
import type { IssueStatus } from "./status.ts";

type Fact<T extends DomainEvent["type"]> = Extract<DomainEvent, { type: T }>;

const NOW = "2026-11-25T12:00:00.000Z";
const T0 = "2026-11-25T11:00:00.000Z";
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const anError = (id: string, fields: Partial<ErrorEvent> = {}): ErrorEvent => ({
  id,
  client_event_id: null,
  session_id: "s1",
  user_id: "u1",
  source_module: "Checkout",
  message: "Payment 42 failed",
  custom_attributes: {},
  environment: "ios",
  app_version: "1.0.0",
  sdk_name: "swift",
  sdk_version: "2.0.0",
  is_dev: false,
  timestamp: T0,
  app_id: "app",
  country_code: "DE",
  ...fields,
});

const detect = (events: ErrorEvent[], imported = false): IssueCommand => ({ type: "DetectErrors", projectId: "p", teamId: "t", events, imported, now: NOW });
const issueOf = (eventId: string) => derivedId(`issue:p:${eventId}`);
const fingerprintOf = (message: string, fields: Partial<ErrorEvent> = {}) => groupingOf(anError("x", { message, ...fields })).fingerprint;

const opened = (eventId: string, fields: Partial<Fact<"IssueOpened">> = {}): DomainEvent => ({
  type: "IssueOpened",
  v: 1,
  issue_id: issueOf(eventId),
  project_id: "p",
  team_id: "t",
  app_id: "app",
  is_dev: false,
  fingerprint: fingerprintOf("Payment 42 failed"),
  title: "Payment 42 failed",
  source_module: "Checkout",
  event_id: eventId,
  imported: false,
  opened_at: NOW,
  ...fields,
});

const occurrence = (issueId: string, event: ErrorEvent): DomainEvent => ({
  type: "IssueOccurrenceRecorded",
  v: 1,
  occurrence_id: derivedId(`occurrence:${issueId}:${event.session_id}`),
  issue_id: issueId,
  project_id: "p",
  event_id: event.id,
  event_client_id: event.client_event_id,
  session_id: event.session_id,
  user_id: event.user_id,
  app_version: event.app_version,
  sdk_name: event.sdk_name,
  sdk_version: event.sdk_version,
  environment: event.environment,
  country_code: event.country_code,
  timestamp: event.timestamp,
  recorded_at: NOW,
});

const statusChanged = (issueId: string, from: IssueStatus, to: Fact<"IssueStatusChanged">["to"], fields: Partial<Fact<"IssueStatusChanged">> = {}): DomainEvent => ({
  type: "IssueStatusChanged",
  v: 1,
  issue_id: issueId,
  project_id: "p",
  team_id: "t",
  from,
  to,
  resolved_at_version: null,
  snoozed_at: null,
  changed_at: NOW,
  ...fields,
});

const first = anError("e1");
const ISSUE = issueOf("e1");
const about = { issue_id: ISSUE, project_id: "p", team_id: "t", app_id: "app", is_dev: false, title: "Payment 42 failed" };
const history = [opened("e1"), occurrence(ISSUE, first)];

describe("detecting errors", () => {
  it("opens an issue with the first occurrence", () => {
    given(issuesDecider)().when(detect([first])).then(...history);
  });

  it("records one occurrence per session: the first error of it", () => {
    const later = anError("e2", { message: "Payment 7 failed", timestamp: at(60_000) });
    given(issuesDecider)(...history).when(detect([later])).then();
    const otherSession = anError("e3", { session_id: "s2", message: "payment 9 FAILED" });
    given(issuesDecider)(...history).when(detect([otherSession])).then(occurrence(ISSUE, otherSession));
  });

  it("takes a batch in time order, whatever order it came in", () => {
    const early = anError("e0", { timestamp: at(-1_000) });
    given(issuesDecider)().when(detect([first, early])).then(opened("e0"), occurrence(issueOf("e0"), early));
  });

  it("aliases another error of the session within 5 s of its first into the same issue", () => {
    const burst = anError("e2", { message: "Receipt missing", timestamp: at(5_000) });
    given(issuesDecider)()
      .when(detect([first, burst]))
      .then(...history, { type: "IssueFingerprintAliased", v: 1, issue_id: ISSUE, project_id: "p", fingerprint: fingerprintOf("Receipt missing"), aliased_at: NOW });
  });

  it("aliases across batches, from the session's recorded first error", () => {
    const burst = anError("e2", { message: "Receipt missing", timestamp: at(3_000) });
    given(issuesDecider)(...history)
      .when(detect([burst]))
      .then({ type: "IssueFingerprintAliased", v: 1, issue_id: ISSUE, project_id: "p", fingerprint: fingerprintOf("Receipt missing"), aliased_at: NOW });
  });

  it("sends an aliased fingerprint to its issue from then on, in any session", () => {
    const aliased: DomainEvent = { type: "IssueFingerprintAliased", v: 1, issue_id: ISSUE, project_id: "p", fingerprint: fingerprintOf("Receipt missing"), aliased_at: NOW };
    const elsewhere = anError("e9", { session_id: "s9", message: "Receipt missing" });
    given(issuesDecider)(...history, aliased).when(detect([elsewhere])).then(occurrence(ISSUE, elsewhere));
  });

  it("opens a new issue for an error after the burst window", () => {
    const late = anError("e2", { message: "Receipt missing", timestamp: at(5_001) });
    given(issuesDecider)(...history)
      .when(detect([late]))
      .then(opened("e2", { fingerprint: fingerprintOf("Receipt missing"), title: "Receipt missing" }), occurrence(issueOf("e2"), late));
  });

  it("never aliases a fingerprint that already has an issue", () => {
    const known = [opened("k1", { fingerprint: fingerprintOf("Receipt missing"), title: "Receipt missing" })];
    const burst = anError("e2", { message: "Receipt missing", timestamp: at(1_000) });
    given(issuesDecider)(...history, ...known).when(detect([burst])).then(occurrence(issueOf("k1"), burst));
  });

  it("keeps dev and production, and two apps, apart", () => {
    const dev = anError("d1", { is_dev: true, session_id: "s5" });
    given(issuesDecider)(...history).when(detect([dev])).then(opened("d1", { is_dev: true }), occurrence(issueOf("d1"), dev));
    const otherApp = anError("a1", { app_id: "app2", session_id: "s6" });
    given(issuesDecider)(...history).when(detect([otherApp])).then(opened("a1", { app_id: "app2" }), occurrence(issueOf("a1"), otherApp));
  });

  it("splits one call site by _error_type", () => {
    const typed = anError("e2", { session_id: "s2", custom_attributes: { _error_type: "Timeout" } });
    given(issuesDecider)(...history)
      .when(detect([typed]))
      .then(opened("e2", { fingerprint: fingerprintOf("Payment 42 failed", { custom_attributes: { _error_type: "Timeout" } }) }), occurrence(issueOf("e2"), typed));
  });
});

describe("regression and reopening", () => {
  const resolvedAt = (version: string) => [...history, statusChanged(ISSUE, "new", "resolved", { resolved_at_version: version })];
  const inVersion = (version: string | null) => anError("e5", { session_id: "s5", app_version: version });

  it("regresses a resolved issue on a strictly newer version", () => {
    const event = inVersion("1.2.4");
    given(issuesDecider)(...resolvedAt("1.2.3"))
      .when(detect([event]))
      .then(occurrence(ISSUE, event), { type: "IssueRegressed", v: 1, ...about, resolved_at_version: "1.2.3", app_version: "1.2.4", regressed_at: NOW });
  });

  it.each([["1.2.3"], ["v1.2.3"], ["1.2.3 (99)"], ["1.2.2"], ["1.2.3-beta.1"], [null], ["unknown"]])("does not regress on %s after 1.2.3", (version) => {
    const event = inVersion(version);
    given(issuesDecider)(...resolvedAt("1.2.3")).when(detect([event])).then(occurrence(ISSUE, event));
  });

  it("reopens a snoozed issue on a new occurrence", () => {
    const event = inVersion("1.0.0");
    given(issuesDecider)(...history, statusChanged(ISSUE, "new", "snoozed", { snoozed_at: NOW }))
      .when(detect([event]))
      .then(occurrence(ISSUE, event), { type: "IssueReopened", v: 1, ...about, reopened_at: NOW });
  });

  it.each<[IssueStatus, DomainEvent[]]>([
    ["silenced", [statusChanged(ISSUE, "new", "silenced")]],
    ["in_progress", [statusChanged(ISSUE, "new", "in_progress")]],
  ])("leaves a %s issue as it is", (_, moves) => {
    const event = inVersion("9.0.0");
    given(issuesDecider)(...history, ...moves).when(detect([event])).then(occurrence(ISSUE, event));
  });

  it("does not regress or reopen on imported history", () => {
    const event = inVersion("9.0.0");
    given(issuesDecider)(...resolvedAt("1.0.0")).when(detect([event], true)).then(occurrence(ISSUE, event));
  });

  it("regresses once per batch: the second session finds it regressed", () => {
    const a = anError("e5", { session_id: "s5", app_version: "2.0.0" });
    const b = anError("e6", { session_id: "s6", app_version: "2.0.0", timestamp: at(1) });
    given(issuesDecider)(...resolvedAt("1.0.0"))
      .when(detect([a, b]))
      .then(occurrence(ISSUE, a), { type: "IssueRegressed", v: 1, ...about, resolved_at_version: "1.0.0", app_version: "2.0.0", regressed_at: NOW }, occurrence(ISSUE, b));
  });
});

describe("changing status", () => {
  const change = (to: Fact<"IssueStatusChanged">["to"], resolvedAtVersion?: string): IssueCommand => ({ type: "ChangeIssueStatus", projectId: "p", issueId: ISSUE, to, resolvedAtVersion, now: NOW });

  it("resolves with a version", () => {
    given(issuesDecider)(...history).when(change("resolved", " 1.2.3 ")).then(statusChanged(ISSUE, "new", "resolved", { resolved_at_version: "1.2.3" }));
  });

  it("refuses to resolve without a version", () => {
    expect(given(issuesDecider)(...history).when(change("resolved")).thenFails("invalid").message).toMatch(/resolved_at_version/);
    given(issuesDecider)(...history).when(change("resolved", "  ")).thenFails("invalid");
  });

  it("clears resolved_at_version on a move to new", () => {
    given(issuesDecider)(...history, statusChanged(ISSUE, "new", "resolved", { resolved_at_version: "1.0" }))
      .when(change("new"))
      .then(statusChanged(ISSUE, "resolved", "new"));
  });

  it("sets snoozed_at on snoozing and clears it on leaving", () => {
    given(issuesDecider)(...history).when(change("snoozed")).then(statusChanged(ISSUE, "new", "snoozed", { snoozed_at: NOW }));
    given(issuesDecider)(...history, statusChanged(ISSUE, "new", "snoozed", { snoozed_at: NOW })).when(change("silenced")).then(statusChanged(ISSUE, "snoozed", "silenced"));
  });

  it("moves a regressed issue on, keeping the version it was resolved in until it is resolved again", () => {
    const regressed: DomainEvent = { type: "IssueRegressed", v: 1, ...about, resolved_at_version: "1.0", app_version: "2.0", regressed_at: NOW };
    given(issuesDecider)(...history, statusChanged(ISSUE, "new", "resolved", { resolved_at_version: "1.0" }), regressed)
      .when(change("in_progress"))
      .then(statusChanged(ISSUE, "regressed", "in_progress", { resolved_at_version: "1.0" }));
  });

  it("refuses moves the table does not list", () => {
    given(issuesDecider)(...history).when(change("new")).thenFails("invalid");
    given(issuesDecider)(...history, statusChanged(ISSUE, "new", "resolved", { resolved_at_version: "1" })).when(change("in_progress")).thenFails("invalid");
    given(issuesDecider)(...history, statusChanged(ISSUE, "new", "resolved", { resolved_at_version: "1" })).when(change("resolved", "2")).thenFails("invalid");
  });

  it("answers not found for an issue the project does not have", () => {
    given(issuesDecider)().when(change("in_progress")).thenFails("not_found");
  });
});

describe("comments", () => {
  const author = { type: "user" as const, id: "u1", name: "Ada" };
  const added: DomainEvent = { type: "IssueCommentAdded", v: 1, comment_id: "c1", issue_id: ISSUE, project_id: "p", team_id: "t", author, body: "look", created_at: NOW };
  const about = { projectId: "p", issueId: ISSUE, commentId: "c1", now: NOW };
  const as = (type: "user" | "api_key", id: string, moderator = false) => ({ type, id, moderator });

  it("adds a comment with its author", () => {
    given(issuesDecider)(...history).when({ type: "AddIssueComment", ...about, author, body: "look" }).then(added);
  });

  it("refuses a comment on an issue the project does not have", () => {
    given(issuesDecider)().when({ type: "AddIssueComment", ...about, author, body: "look" }).thenFails("not_found");
  });

  it("lets only the author edit", () => {
    given(issuesDecider)(...history, added)
      .when({ type: "EditIssueComment", ...about, actor: as("user", "u1"), body: "better" })
      .then({ type: "IssueCommentEdited", v: 1, comment_id: "c1", issue_id: ISSUE, project_id: "p", team_id: "t", body: "better", edited_at: NOW });
    given(issuesDecider)(...history, added).when({ type: "EditIssueComment", ...about, actor: as("user", "u2", true), body: "x" }).thenFails("forbidden");
    given(issuesDecider)(...history, added).when({ type: "EditIssueComment", ...about, actor: as("api_key", "u1"), body: "x" }).thenFails("forbidden");
  });

  it("lets the author or a moderator delete, nobody else", () => {
    const deleted: DomainEvent = { type: "IssueCommentDeleted", v: 1, comment_id: "c1", issue_id: ISSUE, project_id: "p", team_id: "t", deleted_at: NOW };
    given(issuesDecider)(...history, added).when({ type: "DeleteIssueComment", ...about, actor: as("user", "u1") }).then(deleted);
    given(issuesDecider)(...history, added).when({ type: "DeleteIssueComment", ...about, actor: as("user", "u2", true) }).then(deleted);
    given(issuesDecider)(...history, added).when({ type: "DeleteIssueComment", ...about, actor: as("user", "u2") }).thenFails("forbidden");
    given(issuesDecider)(...history, added, deleted).when({ type: "DeleteIssueComment", ...about, actor: as("user", "u1") }).thenFails("not_found");
    given(issuesDecider)(...history, added, deleted).when({ type: "EditIssueComment", ...about, actor: as("user", "u1"), body: "x" }).thenFails("not_found");
  });
});

describe("merging", () => {
  const other = anError("o1", { message: "Other thing", session_id: "s2" });
  const OTHER = issueOf("o1");
  const otherHistory = [opened("o1", { fingerprint: fingerprintOf("Other thing"), title: "Other thing" }), occurrence(OTHER, other)];
  const merge = (sourceIssueId: string, targetIssueId = ISSUE): IssueCommand => ({ type: "MergeIssues", projectId: "p", targetIssueId, sourceIssueId, now: NOW });
  const merged: DomainEvent = { type: "IssuesMerged", v: 1, target_issue_id: ISSUE, source_issue_id: OTHER, project_id: "p", team_id: "t", merged_at: NOW };

  it("merges another issue of the project", () => {
    given(issuesDecider)(...history, ...otherHistory).when(merge(OTHER)).then(merged);
  });

  it("refuses merging into itself, an unknown source and an unknown target", () => {
    given(issuesDecider)(...history).when(merge(ISSUE)).thenFails("invalid");
    given(issuesDecider)(...history).when(merge(OTHER)).thenFails("invalid");
    given(issuesDecider)(...otherHistory).when(merge(OTHER, ISSUE)).thenFails("not_found");
  });

  it("sends the source's fingerprints to the target and keeps one occurrence per session", () => {
    const again = anError("o2", { message: "Other thing", session_id: "s9" });
    given(issuesDecider)(...history, ...otherHistory, merged).when(detect([again])).then(occurrence(ISSUE, again));
    const sameSession = anError("o3", { message: "Other thing", session_id: "s2", timestamp: at(60_000) });
    given(issuesDecider)(...history, ...otherHistory, merged).when(detect([sameSession])).then();
  });
});
