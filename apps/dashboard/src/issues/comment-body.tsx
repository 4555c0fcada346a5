import type { ComponentProps } from "react";
import Markdown, { type Components } from "react-markdown";

/**
 * Links leave the dashboard in a new tab and pass nothing of it along (no opener, no referrer). A
 * target the URL filter emptied (`javascript:` and the like) is shown as plain text: an empty href
 * would reload the page.
 */
function OutboundLink({ href, children }: ComponentProps<"a">) {
  if (!href) return <span className="dropped-link">{children}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

/**
 * An image would be fetched from wherever its author chose the moment a teammate opens the issue
 * (a tracking pixel): it is shown as a link to follow deliberately instead.
 */
function ImageAsLink({ src, alt }: ComponentProps<"img">) {
  const target = typeof src === "string" ? src : undefined;
  return target ? <OutboundLink href={target}>{alt || target}</OutboundLink> : <>{alt}</>;
}

const components: Components = { a: OutboundLink, img: ImageAsLink };

/**
 * A comment's Markdown as React elements. Raw HTML is never interpreted: react-markdown turns it
 * into text (a `<script>` shows as those characters), and its URL filter drops `javascript:` and
 * other unsafe link targets.
 */
export function CommentBody({ markdown }: { markdown: string }) {
  return (
    <div className="markdown">
      <Markdown components={components}>{markdown}</Markdown>
    </div>
  );
}
