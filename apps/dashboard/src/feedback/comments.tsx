import { useState } from "react";
import Markdown from "react-markdown";
import { Empty } from "../ui/states.tsx";
import type { FeedbackDetail, useFeedbackChanges } from "./queries.ts";
import { When } from "../ui/format.tsx";


type Comment = FeedbackDetail["comments"][number];

function CommentItem({ comment }: { comment: Comment }) {
  return (
    <li className="comment">
      <p className="muted">
        <strong>{comment.author_name}</strong> · <When at={comment.created_at} />
        {comment.edited_at && " · edited"}
      </p>
      {/* Markdown to elements; raw HTML in a comment is dropped, never inserted. */}
      <div className="comment-body">
        <Markdown skipHtml>{comment.body}</Markdown>
      </div>
    </li>
  );
}

/** The team's discussion of a feedback, oldest first, and the form that adds to it. */
export function Comments({ comments, comment }: { comments: Comment[]; comment: ReturnType<typeof useFeedbackChanges>["comment"] }) {
  const [draft, setDraft] = useState("");
  const send = () => {
    if (draft.trim() === "") return;
    comment.mutate(draft, { onSuccess: () => setDraft("") });
  };
  return (
    <>
      {comments.length === 0 ? (
        <Empty>No comments yet.</Empty>
      ) : (
        <ol className="comments">
          {comments.map((item) => (
            <CommentItem key={item.id} comment={item} />
          ))}
        </ol>
      )}
      <form
        className="comment-form"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <label className="field" htmlFor="new-comment">
          Add a comment (Markdown)
        </label>
        <textarea id="new-comment" rows={3} value={draft} maxLength={4000} onChange={(event) => setDraft(event.target.value)} />
        {comment.error && (
          <p className="state error" role="alert">
            Could not add the comment: {comment.error.message}
          </p>
        )}
        <button type="submit" disabled={comment.isPending || draft.trim() === ""}>
          {comment.isPending ? "Sending…" : "Comment"}
        </button>
      </form>
    </>
  );
}
