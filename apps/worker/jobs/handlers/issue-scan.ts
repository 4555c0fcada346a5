import type { DomainEvent } from "../../../../domain/events.ts";
import type { ErrorEvent } from "../../../../domain/issues/decider.ts";
import { SYSTEM_ACTOR } from "../../../../domain/shared/envelope.ts";
import { errorEventsPage } from "../../../../projections/events/queries.ts";
import type { CommandDeps } from "../../../commands/deps.ts";
import { runIssueCommand } from "../../../commands/issue-command.ts";
import type { JobHandler } from "../job-context.ts";

const DEFAULT_WINDOW_HOURS = 24;
const DEFAULT_PAGE_SIZE = 500;
/** Events per decision: keeps one decision's facts (an occurrence each, at most) far below the NATS message limit. */
const EVENTS_PER_DECISION = 200;

/**
 * `issue_scan`, the safety net behind the issue detector: walks the project's error events of the
 * last `window_hours` (default 24, at most 720) in pages of `page_size` (default 500) and decides
 * each page again exactly as the detector does (the same command). Events the detector already
 * handled decide nothing, so the scan only finds what it missed (a batch past its redeliveries, a
 * detector that was down) and reports it.
 */
export function issueScan(deps: CommandDeps): JobHandler {
  return async ({ run, progress }) => {
    const windowHours = boundedInteger(run.params.window_hours, DEFAULT_WINDOW_HOURS, 1, 720, "window_hours");
    const pageSize = boundedInteger(run.params.page_size, DEFAULT_PAGE_SIZE, 1, 5_000, "page_size");
    const projectId = run.projectId!;
    const teamId = run.teamId!;
    const since = new Date(Date.now() - windowHours * 3_600_000);
    const apps = new Set<string>();
    const sessions = new Set<string>();
    const found = { issues_created: 0, regressed: 0, reopened: 0 };
    const tally = (facts: DomainEvent[]) => {
      for (const fact of facts) {
        if (fact.type === "IssueOpened") found.issues_created += 1;
        if (fact.type === "IssueRegressed") found.regressed += 1;
        if (fact.type === "IssueReopened") found.reopened += 1;
      }
    };
    let events = 0;
    let after: { timestamp: string; id: string } | null = null;
    for (;;) {
      const page: readonly ErrorEvent[] = await errorEventsPage(deps.pool, { projectId, since, after, limit: pageSize });
      for (const event of page) {
        apps.add(event.app_id);
        sessions.add(event.session_id);
      }
      for (let start = 0; start < page.length; start += EVENTS_PER_DECISION) {
        const chunk = page.slice(start, start + EVENTS_PER_DECISION);
        const { facts } = await runIssueCommand(deps, { type: "DetectErrors", projectId, teamId, events: chunk, imported: false, now: new Date().toISOString() }, SYSTEM_ACTOR);
        tally(facts);
      }
      events += page.length;
      const last = page.at(-1);
      if (!last) break;
      after = { timestamp: last.timestamp, id: last.id };
      await progress(events, null, `examined ${events} error events`);
      if (page.length < pageSize) break;
    }
    return { window_hours: windowHours, apps: apps.size, events, sessions: sessions.size, ...found };
  };
}

/** A whole-number parameter within bounds, or the default when absent. @throws Error naming the parameter */
export function boundedInteger(value: unknown, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`params.${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}
