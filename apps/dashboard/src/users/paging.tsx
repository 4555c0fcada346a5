import { useCallback } from "react";
import { Link, useSearchParams } from "react-router";
import { useChangeSearchParams } from "../ui/search-params.ts";

/**
 * Sets some search parameters of a paged list at once and goes back to its first page: a cursor
 * belongs to the filters it was handed out with. Empty values are removed, so a default view has
 * a short URL.
 */
export function useListParams(): [URLSearchParams, (changes: Record<string, string | null>) => void] {
  const [params] = useSearchParams();
  const changeParams = useChangeSearchParams();
  const change = useCallback(
    (changes: Record<string, string | null>) =>
      changeParams((next) => {
        next.delete("cursor");
        for (const [name, value] of Object.entries(changes)) {
          if (value === null || value === "") next.delete(name);
          else next.set(name, value);
        }
      }),
    [changeParams],
  );
  return [params, change];
}

/**
 * Links to the first and the next page of a cursor-paged list. The cursor is in the URL, so a
 * page can be reloaded and shared; the API's cursors only go forward, and the browser's Back
 * button returns to the page before.
 */
export function Pager({ params, next }: { params: URLSearchParams; next: string | null }) {
  const at = (cursor: string | null) => {
    const target = new URLSearchParams(params);
    if (cursor === null) target.delete("cursor");
    else target.set("cursor", cursor);
    const query = target.toString();
    return query === "" ? "." : `?${query}`;
  };
  if (!params.has("cursor") && next === null) return null;
  return (
    <nav className="pager" aria-label="Pages">
      {params.has("cursor") && <Link to={at(null)}>First page</Link>}
      {next !== null && <Link to={at(next)}>Next page</Link>}
    </nav>
  );
}
