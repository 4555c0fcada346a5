import { Empty } from "../ui/states.tsx";
import { useDownloadLinks, type AttachmentItem } from "./queries.ts";

const size = new Intl.NumberFormat(undefined, { style: "unit", unit: "kilobyte", maximumFractionDigits: 1 });

/**
 * The download URL on this origin: the service serves the dashboard too, and its links name
 * PUBLIC_BASE_URL, which a dashboard opened through another address (a tunnel, localhost) cannot reach.
 */
const onThisOrigin = (url: string) => {
  const parsed = new URL(url, window.location.origin);
  return `${parsed.pathname}${parsed.search}`;
};

/** An event's attachments with their download links (each valid for a minute, and renewed before it ends). */
export function AttachmentList({ attachments }: { attachments: readonly AttachmentItem[] }) {
  const links = useDownloadLinks(attachments);
  if (attachments.length === 0) {
    return (
      <Empty>
        <p>No files were attached to this event.</p>
      </Empty>
    );
  }
  const linkOf = new Map(links.flatMap((link) => (link.data?.download_url ? [[link.data.id, link.data.download_url.url] as const] : [])));
  const failed = links.find((link) => link.error)?.error;
  return (
    <>
      <ul className="attachments">
        {attachments.map((attachment) => {
          const url = linkOf.get(attachment.id);
          return (
            <li key={attachment.id}>
              {url ? (
                <a href={onThisOrigin(url)} download={attachment.original_filename}>
                  {attachment.original_filename}
                </a>
              ) : (
                <span>{attachment.original_filename}</span>
              )}
              <span className="muted">
                {" "}
                {attachment.content_type} · {size.format(attachment.size_bytes / 1000)}
                {attachment.uploaded_at === null ? " · not uploaded yet" : url ? "" : " · preparing link…"}
              </span>
            </li>
          );
        })}
      </ul>
      {failed && (
        <p className="state error" role="alert">
          Could not get a download link: {failed.message}
        </p>
      )}
    </>
  );
}
