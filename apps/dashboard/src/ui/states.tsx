import type { ReactNode } from "react";

/** What a page region needs from one or several queries: it is loading, failed, or has its data. */
export type Loadable<T> = { data: T | undefined; error: Error | null; refetch: () => unknown };

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

/** A query's three states around what it shows once loaded; a failed refresh keeps the data it had. */
export function Loaded<T>({ query, label, children }: { query: Loadable<T>; label: string; children: (data: T) => ReactNode }) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return <Loading label={label} />;
}
