import { Link, useParams, useSearchParams } from "react-router";
import { ApiError } from "../api/client.ts";
import { Empty, ErrorState, Loading } from "../ui/states.tsx";
import { Attachments } from "./attachments.tsx";
import { Comments } from "./comments.tsx";
import { Fingerprints, IssueFacts } from "./issue-facts.tsx";
import { useIssueDetail } from "./issue-queries.ts";
import { LocateIssue } from "./locate-issue.tsx";
import { Merge } from "./merge.tsx";
import { Occurrences } from "./occurrences.tsx";
import { StatusMoves } from "./status-moves.tsx";
import "./issues.css";

/** /issues/:id: the project comes from `?project=` (the board's links) or is looked up (mail links). */
export function IssuePage() {
  const { id = "" } = useParams();
  const [params] = useSearchParams();
  const projectId = params.get("project") ?? params.get("project_id") ?? undefined;
  if (projectId === undefined) return <LocateIssue issueId={id} />;
  return <IssueView projectId={projectId} issueId={id} />;
}

function IssueView({ projectId, issueId }: { projectId: string; issueId: string }) {
  const detail = useIssueDetail(projectId, issueId);
  const board = `/issues?project=${projectId}`;

  if (detail.isPending) return <Loading label="Loading the issue" />;
  if (detail.isError && !detail.data) {
    if (detail.error instanceof ApiError && (detail.error.status === 404 || detail.error.status === 400)) {
      return (
        <section aria-labelledby="page-title">
          <h1 id="page-title">Issue not found</h1>
          <Empty>
            <p>
              This project has no such issue: it may have been merged into another one or deleted. <Link to={board}>Back to the project's issues</Link>
            </p>
          </Empty>
        </section>
      );
    }
    return <ErrorState error={detail.error} retry={() => void detail.refetch()} />;
  }

  const pages = detail.data.pages;
  const issue = pages[0];
  if (!issue) return <Loading label="Loading the issue" />;
  const occurrences = pages.flatMap((page) => page.occurrences);
  const scope = { projectId, issueId };

  return (
    <article aria-labelledby="page-title" className="issue-detail">
      <p className="back">
        <Link to={board}>← Issues</Link>
      </p>
      <h1 id="page-title" className="issue-heading">
        {issue.title}
      </h1>
      {detail.isRefetchError && <p role="alert" className="form-error">Could not refresh: {detail.error?.message}</p>}
      <div className="issue-layout">
        <div className="issue-main">
          <StatusMoves issue={issue} latestVersion={occurrences.find((occurrence) => occurrence.app_version)?.app_version ?? null} />
          <Occurrences
            occurrences={occurrences}
            total={issue.occurrence_count}
            hasMore={detail.hasNextPage}
            loadingMore={detail.isFetchingNextPage}
            loadMore={() => void detail.fetchNextPage()}
            moreError={detail.isFetchNextPageError ? detail.error : null}
          />
          <Comments scope={scope} comments={issue.comments} />
        </div>
        <div className="issue-side">
          <IssueFacts issue={issue} />
          <Fingerprints fingerprints={issue.fingerprints} />
          <Attachments attachments={issue.attachments} />
          <Merge issue={issue} />
        </div>
      </div>
    </article>
  );
}
