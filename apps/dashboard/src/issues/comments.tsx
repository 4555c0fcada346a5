import { useId, useState, type FormEvent } from "react";
import { useSession } from "../session/session.tsx";
import { CommentBody } from "./comment-body.tsx";
import { when } from "./format.ts";
import { useAddComment, useDeleteComment, useEditComment } from "./issue-queries.ts";
import type { IssueDetail } from "./status.ts";

type Comment = IssueDetail["comments"][number];
type Scope = { projectId: string; issueId: string };

/** The API refuses an edit by anyone but the author, and a deletion by anyone but the author or a team admin. */
function useCommentRights(comment: Comment) {
  const { user, team } = useSession();
  const own = comment.author_type === "user" && comment.author_id === user.id;
  return { canEdit: own, canDelete: own || team.role === "admin" || team.role === "owner" };
}

function CommentEditor({ scope, comment, done }: { scope: Scope; comment: Comment; done: () => void }) {
  const edit = useEditComment(scope.projectId, scope.issueId);
  const [body, setBody] = useState(comment.body);
  const id = useId();
  const save = (event: FormEvent) => {
    event.preventDefault();
    edit.mutate({ commentId: comment.id, body }, { onSuccess: done });
  };
  return (
    <form className="comment-form" onSubmit={save}>
      <label htmlFor={id}>Edit comment</label>
      <textarea id={id} value={body} onChange={(event) => setBody(event.target.value)} required rows={4} />
      {edit.isError && <p role="alert" className="form-error">Not saved: {edit.error.message}</p>}
      <div className="actions">
        <button type="submit" disabled={edit.isPending}>
          {edit.isPending ? "Saving…" : "Save"}
        </button>
        <button type="button" className="secondary" onClick={done}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function CommentItem({ scope, comment }: { scope: Scope; comment: Comment }) {
  const { canEdit, canDelete } = useCommentRights(comment);
  const [mode, setMode] = useState<"view" | "edit" | "confirm-delete">("view");
  const remove = useDeleteComment(scope.projectId, scope.issueId);
  const edited = comment.updated_at !== comment.created_at;

  return (
    <li className="comment">
      <p className="muted comment-meta">
        <strong>{comment.author_name}</strong>
        {comment.author_type === "api_key" && " (agent key)"} · {when(comment.created_at)}
        {edited && <span title={`Edited ${when(comment.updated_at)}`}> · edited</span>}
      </p>
      {mode === "edit" ? <CommentEditor scope={scope} comment={comment} done={() => setMode("view")} /> : <CommentBody markdown={comment.body} />}
      {mode === "view" && (canEdit || canDelete) && (
        <div className="actions">
          {canEdit && (
            <button type="button" className="link" onClick={() => setMode("edit")}>
              Edit
            </button>
          )}
          {canDelete && (
            <button type="button" className="link" onClick={() => setMode("confirm-delete")}>
              Delete
            </button>
          )}
        </div>
      )}
      {mode === "confirm-delete" && (
        <div className="actions confirm" role="group" aria-label="Confirm deletion">
          <span>Delete this comment?</span>
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(comment.id)}>
            {remove.isPending ? "Deleting…" : "Delete comment"}
          </button>
          <button type="button" className="secondary" onClick={() => setMode("view")}>
            Keep it
          </button>
        </div>
      )}
      {remove.isError && <p role="alert" className="form-error">Not deleted: {remove.error.message}</p>}
    </li>
  );
}

function NewComment({ scope }: { scope: Scope }) {
  const add = useAddComment(scope.projectId, scope.issueId);
  const [body, setBody] = useState("");
  const post = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(body, { onSuccess: () => setBody("") });
  };
  return (
    <form className="comment-form" onSubmit={post}>
      <label htmlFor="new-comment">Add a comment</label>
      <textarea id="new-comment" value={body} onChange={(event) => setBody(event.target.value)} required rows={4} aria-describedby="new-comment-hint" />
      <p id="new-comment-hint" className="muted">
        Markdown: **bold**, `code`, [link](https://…). HTML shows as text.
      </p>
      {add.isError && <p role="alert" className="form-error">Not posted: {add.error.message}</p>}
      <div className="actions">
        <button type="submit" disabled={add.isPending || body.trim() === ""}>
          {add.isPending ? "Posting…" : "Post comment"}
        </button>
      </div>
    </form>
  );
}

/** The issue's discussion, oldest first as the API lists it, with a form to add to it. */
export function Comments({ scope, comments }: { scope: Scope; comments: Comment[] }) {
  return (
    <section className="card" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments ({comments.length})</h2>
      {comments.length === 0 ? (
        <p className="muted">No comments yet.</p>
      ) : (
        <ul className="comments">
          {comments.map((comment) => (
            <CommentItem key={comment.id} scope={scope} comment={comment} />
          ))}
        </ul>
      )}
      <NewComment scope={scope} />
    </section>
  );
}
