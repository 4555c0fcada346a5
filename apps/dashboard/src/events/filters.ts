import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { paths } from "../api/schema.ts";
import { dataModeOf } from "../overview/window.ts";

/** The query of `GET /v1/events`, as the OpenAPI document types it. */
export type EventListQuery = NonNullable<paths["/v1/events"]["get"]["parameters"]["query"]>;
export type Level = "info" | "debug" | "warn" | "error";
export type Environment = NonNullable<EventListQuery["environment"]>;
export type DataMode = NonNullable<EventListQuery["data_mode"]>;
export type Order = NonNullable<EventListQuery["order"]>;

export const LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];
export const ENVIRONMENTS: readonly Environment[] = ["ios", "ipados", "macos", "watchos", "android", "web", "backend"];

/**
 * Everything the explorer shows is chosen in the URL, under the API's own parameter names (except
 * `project`, which every page shares), so a view reloads and can be sent to someone.
 */
export type EventFilters = {
  project: string | undefined;
  appId: string | undefined;
  levels: Level[];
  userId: string | undefined;
  sessionId: string | undefined;
  environment: Environment | undefined;
  screenName: string | undefined;
  since: string | undefined;
  until: string | undefined;
  dataMode: DataMode;
  order: Order;
};

/** The URL parameter of each filter. */
export const PARAMS = {
  project: "project",
  appId: "app_id",
  levels: "level",
  userId: "user_id",
  sessionId: "session_id",
  environment: "environment",
  screenName: "screen_name",
  since: "since",
  until: "until",
  dataMode: "data_mode",
  order: "order",
} as const satisfies Record<keyof EventFilters, string>;

const text = (params: URLSearchParams, name: string) => params.get(name)?.trim() || undefined;
const oneOf = <T extends string>(value: string | null, allowed: readonly T[]): T | undefined => (allowed as readonly string[]).includes(value ?? "") ? (value as T) : undefined;

function readFilters(params: URLSearchParams): EventFilters {
  return {
    project: text(params, PARAMS.project),
    appId: text(params, PARAMS.appId),
    levels: (params.get(PARAMS.levels) ?? "").split(",").filter((level): level is Level => oneOf(level, LEVELS) !== undefined),
    userId: text(params, PARAMS.userId),
    sessionId: text(params, PARAMS.sessionId),
    environment: oneOf(params.get(PARAMS.environment), ENVIRONMENTS),
    screenName: text(params, PARAMS.screenName),
    since: text(params, PARAMS.since),
    until: text(params, PARAMS.until),
    dataMode: dataModeOf(params.get(PARAMS.dataMode)),
    order: params.get(PARAMS.order) === "asc" ? "asc" : "desc",
  };
}

/** The filters as the API's query: the list's and the live tail's (which takes the same filters, without order). */
export function apiQuery(filters: EventFilters, teamId: string): EventListQuery {
  return {
    team_id: teamId,
    project_id: filters.project,
    app_id: filters.appId,
    level: filters.levels.length > 0 ? filters.levels.join(",") : undefined,
    user_id: filters.userId,
    session_id: filters.sessionId,
    environment: filters.environment,
    screen_name: filters.screenName,
    since: filters.since,
    until: filters.until,
    data_mode: filters.dataMode,
  };
}

/** A query string of the defined values, for the EventSource URL. */
export function queryString(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, String(value));
  return params.toString();
}

/**
 * The filters in the URL and a way to change several at once. A change of filters starts again
 * at the first page: a cursor belongs to the filters it was fetched with.
 */
export function useEventFilters() {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => readFilters(params), [params]);
  const change = useCallback(
    (changes: Partial<Record<keyof EventFilters, string | undefined>>) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          const name = PARAMS[key as keyof EventFilters];
          if (value === undefined || value.trim() === "") next.delete(name);
          else next.set(name, value.trim());
        }
        next.delete("cursor");
        return next;
      }),
    [setParams],
  );
  return { filters, change };
}
