import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { Link, useSearchParams } from "react-router";
import { api, ApiError, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { Empty, ErrorState, Loading } from "../ui/states.tsx";
import { fetchDetail, useSeedDetail } from "./issue-queries.ts";

/** A 404 (not in that project) or 400 (not an issue id at all) just means "not there". */
const isAbsent = (error: unknown) => error instanceof ApiError && (error.status === 404 || error.status === 400);

/**
 * Which project holds an issue, for links without one (notification mails link
 * `/dashboard/issues/<id>`): every project the user can see, in any of their teams, is asked for
 * the issue at once. The one that has it answers with the detail's first page, kept so the page
 * does not ask again.
 */
async function locate(issueId: string) {
  const { projects } = await unwrap(api.GET("/v1/projects"));
  const answers = await Promise.allSettled(projects.map(async (project) => ({ project, detail: await fetchDetail(project.id, issueId) })));
  for (const answer of answers) if (answer.status === "fulfilled") return answer.value;
  const failure = answers.find((answer) => answer.status === "rejected" && !isAbsent(answer.reason));
  if (failure?.status === "rejected") throw failure.reason;
  return null;
}

/** Finds the issue's project, then puts it in the URL (replacing this entry) so a reload asks directly. */
export function LocateIssue({ issueId }: { issueId: string }) {
  const { team, chooseTeam } = useSession();
  const [, setParams] = useSearchParams();
  const seed = useSeedDetail();
  const found = useQuery({ queryKey: ["issues", "locate", issueId], queryFn: () => locate(issueId), refetchInterval: false });

  useEffect(() => {
    if (!found.data) return;
    const { project, detail } = found.data;
    seed(project.id, issueId, detail);
    // The issue belongs to another of the user's teams: the header then names the team it is in.
    if (project.team_id !== team.id) chooseTeam(project.team_id);
    setParams({ project: project.id }, { replace: true });
  }, [found.data, issueId, seed, setParams, team.id, chooseTeam]);

  if (found.isError) return <ErrorState error={found.error} retry={() => void found.refetch()} />;
  if (found.data === null) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Issue not found</h1>
        <Empty>
          <p>
            No project you can see has this issue. It may have been merged into another one or deleted. <Link to="/issues">Back to the issues board</Link>
          </p>
        </Empty>
      </section>
    );
  }
  return <Loading label="Finding the issue" />;
}
