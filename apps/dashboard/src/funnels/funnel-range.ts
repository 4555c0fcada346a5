import { rangeOf, type RangeKey } from "../overview/window.ts";

/** Funnels look back 30 days unless the URL says otherwise, as the API does: a funnel takes days to fill. */
export const funnelRangeOf = (value: string | null): RangeKey => (value === null ? "30d" : rangeOf(value));
