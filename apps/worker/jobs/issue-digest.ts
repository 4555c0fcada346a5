import { DIGEST_LISTED_ISSUES, digestPeriod } from "../../../domain/issues/digest.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { allActiveProjects, toProject } from "../../../projections/directory/catalog-queries.ts";
import { digestContents } from "../../../projections/issues/digest-queries.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import { runIssueCommand } from "../../commands/issue-command.ts";
import type { CleanupStep } from "./attachment-cleanup.ts";

/**
 * The hourly `issue_digest` job: for every active project whose effective `issue_alert_frequency`
 * has a period that ended by `now` (domain/issues/digest.ts), an `IssueDigestPrepared` fact with
 * the period's production issues, on the project's issues subject; the `issue_digest` notification
 * source sends it to the team. A period is sent once (the decider knows the last one sent), so a
 * second run or a second worker in the same hour sends nothing, and a period without occurrences
 * sends nothing at all. Returns `{projects, digests}`; a project that fails is skipped and
 * the run fails at the end, naming it, after every other project had its turn.
 */
export async function runIssueDigests(
  deps: CommandDeps,
  now: Date,
  onStep: CleanupStep = async () => undefined,
): Promise<{ projects: number; digests: number }> {
  const projects = (await allActiveProjects(deps.pool)).map(toProject);
  let digests = 0;
  const failures: string[] = [];
  for (const [index, project] of projects.entries()) {
    const frequency = project.effective_issue_alert_frequency;
    const period = digestPeriod(frequency, now);
    if (period !== null && frequency !== "none") {
      // One project's failure (its subject busy with detection past the retries) must not cost the
      // projects after it their digest: an hourly period missed now is never sent.
      try {
        const contents = await digestContents(deps.pool, project.id, period, DIGEST_LISTED_ISSUES);
        const handled = await runIssueCommand(
          deps,
          {
            type: "PrepareDigest",
            projectId: project.id,
            digest: {
              team_id: project.team_id,
              frequency,
              period_start: period.start,
              period_end: period.end,
              issue_count: contents.issueCount,
              occurrence_count: contents.occurrenceCount,
              issues: contents.issues,
              prepared_at: now.toISOString(),
            },
          },
          SYSTEM_ACTOR,
        );
        if (handled.seq !== null) digests += 1;
      } catch (error) {
        failures.push(`${project.id}: ${(error as Error).message}`);
      }
    }
    await onStep(index + 1, projects.length, `${digests} digests for ${index + 1} of ${projects.length} projects`);
  }
  if (failures.length > 0) throw new Error(`issue digests failed for ${failures.length} of ${projects.length} projects (${digests} sent); first: ${failures[0]}`);
  return { projects: projects.length, digests };
}
