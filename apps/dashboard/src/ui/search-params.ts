import { useCallback } from "react";
import { useSearchParams } from "react-router";

/**
 * Changes the page's search parameters starting from the URL as it is now, not as the page last
 * rendered it. react-router's functional update starts from the rendered parameters, so a second
 * change made before the page has rendered the first (two filters picked in quick succession)
 * would drop the first.
 */
export function useChangeSearchParams(): (change: (next: URLSearchParams) => void) => void {
  const [, setParams] = useSearchParams();
  return useCallback(
    (change: (next: URLSearchParams) => void) => {
      const next = new URLSearchParams(window.location.search);
      change(next);
      setParams(next);
    },
    [setParams],
  );
}
