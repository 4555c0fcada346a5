import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { bytes, when } from "./format.ts";
import type { IssueDetail } from "./status.ts";

type Attachment = IssueDetail["attachments"][number];

/** Download links are signed and short-lived: one is asked for on click, never rendered ahead. */
function DownloadButton({ attachment }: { attachment: Attachment }) {
  const download = useMutation({
    mutationFn: () => unwrap(api.GET("/v1/attachments/{id}", { params: { path: { id: attachment.id } } })),
    onSuccess: (answer) => {
      if (answer.download_url) window.location.assign(answer.download_url.url);
    },
  });
  if (attachment.uploaded_at === null) return <span className="muted">not uploaded yet</span>;
  return (
    <>
      <button type="button" className="link" onClick={() => download.mutate()} disabled={download.isPending} aria-label={`Download ${attachment.original_filename}`}>
        Download
      </button>
      {download.isError && <span role="alert" className="form-error"> {download.error.message}</span>}
    </>
  );
}

/** Files sent with the issue's occurrence events (the API lists up to 100, newest first). */
export function Attachments({ attachments }: { attachments: Attachment[] }) {
  return (
    <section className="card" aria-labelledby="attachments-title">
      <h2 id="attachments-title">Attachments ({attachments.length})</h2>
      {attachments.length === 0 ? (
        <p className="muted">No files were sent with these errors.</p>
      ) : (
        <ul className="plain-list">
          {attachments.map((attachment) => (
            <li key={attachment.id}>
              <strong className="filename">{attachment.original_filename}</strong>
              <span className="muted">
                {" "}
                {attachment.content_type}, {bytes(attachment.size_bytes)}, {when(attachment.created_at)}{" "}
              </span>
              <DownloadButton attachment={attachment} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
