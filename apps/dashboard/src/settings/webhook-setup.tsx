import { useState } from "react";
import type { WebhookSetup } from "./integration-types.ts";

/** What to enter at the provider so its deliveries reach this project. The header carries the secret, hidden until asked for. */
export function WebhookSetupPanel({ setup }: { setup: WebhookSetup }) {
  const [revealed, setRevealed] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (what: string, value: string) =>
    void navigator.clipboard.writeText(value).then(
      () => setCopied(what),
      () => setCopied(null),
    );
  return (
    <section className="webhook stack" aria-label="Webhook setup">
      <h4>Webhook setup</h4>
      <dl>
        <dt>URL</dt>
        <dd>
          <code data-webhook="url">{setup.webhook_url}</code>{" "}
          <button type="button" className="link" onClick={() => copy("url", setup.webhook_url)}>
            {copied === "url" ? "Copied" : "Copy URL"}
          </button>
        </dd>
        <dt>Authorization header</dt>
        <dd>
          <code data-webhook="authorization">{revealed ? setup.authorization_header : "Bearer ••••••••"}</code>{" "}
          <button type="button" className="link" onClick={() => setRevealed((shown) => !shown)}>
            {revealed ? "Hide" : "Show"}
          </button>{" "}
          <button type="button" className="link" onClick={() => copy("header", setup.authorization_header)}>
            {copied === "header" ? "Copied" : "Copy header"}
          </button>
        </dd>
        <dt>Environment</dt>
        <dd>{setup.environment}</dd>
        <dt>Events</dt>
        <dd className="events-filter">{setup.events_filter.split(",").join(", ")}</dd>
      </dl>
    </section>
  );
}
