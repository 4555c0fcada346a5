import { useSyncExternalStore } from "react";

/** The stylesheets' phone width: below it the pages are one column. */
const NARROW = "(max-width: 640px)";

const subscribe = (changed: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener("change", changed);
  return () => query.removeEventListener("change", changed);
};

/** Whether the screen is phone-sized now, following rotation and resizing: for what CSS cannot reach, such as a chart's axis labels. */
export const useNarrowScreen = () => useSyncExternalStore(subscribe, () => window.matchMedia(NARROW).matches);
