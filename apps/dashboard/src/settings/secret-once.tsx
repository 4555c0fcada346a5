import { useRef, useState } from "react";

/**
 * A secret just created, shown this once with a copy button. It lives in component state only:
 * never in the URL, never in the query cache, gone on "Done" or on leaving the page.
 */
export function SecretOnce({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<"idle" | "copied" | "manual">("idle");

  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopy("copied");
    } catch {
      // Without clipboard access (an insecure origin, a refused permission) the text is selected instead.
      input.current?.select();
      setCopy("manual");
    }
  };

  return (
    <div className="secret-once" role="status">
      <p>
        <strong>{title}</strong> Copy it now: it is not shown in full again on this page.
      </p>
      <div className="secret-row">
        <input ref={input} readOnly value={secret} aria-label={title} onFocus={(event) => event.target.select()} spellCheck={false} />
        <button type="button" onClick={() => void copySecret()}>
          {copy === "copied" ? "Copied" : "Copy"}
        </button>
      </div>
      {copy === "manual" && <p className="muted">The browser refused the clipboard: the secret is selected, copy it with Ctrl+C or ⌘C.</p>}
      <button type="button" className="link" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
