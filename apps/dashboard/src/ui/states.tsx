import type { ReactNode } from "react";

/** A region still waiting for its data; screen readers hear the label once. */
export function Loading({ label = "Loading" }: { label?: string }) {
  return (
    <div className="state loading" role="status" aria-busy="true">
      {label}…
    </div>
  );
}

/** A failed request, said plainly, with a way to ask again. */
export function ErrorState({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div className="state error" role="alert">
      <p>Could not load this: {error.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Data that loaded and is empty: what that means and what to do about it. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}
