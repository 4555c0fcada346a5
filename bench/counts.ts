import type pg from "pg";
import { send } from "./http-client.ts";
import type { KeyPacer } from "./key-pacer.ts";
import { measureConcurrentQuery, type QueryFigures } from "./queries.ts";
import { round } from "./stats.ts";

const WINDOWS = { "1h": 3_600_000, "24h": 86_400_000 } as const;
type Window = keyof typeof WINDOWS;

/** Where a layout's events are: a project and one of its apps. */
export type CountLayout = { name: string; projectId: string; appId: string };

/** The API's answer against SQL over the same window; the relative errors are of the distinct counts. */
export type EstimateCheck = {
  /** The count response's `estimated` flag, or "n/a" when the response has no such field. */
  estimated: boolean | "n/a";
  api?: { count: number; unique_users: number; unique_sessions: number };
  exact?: { count: number; unique_users: number; unique_sessions: number };
  users_error?: number;
  sessions_error?: number;
};

export type CountFigures = { layout: string; latency: Record<string, QueryFigures & { clients: number }>; estimates: Record<string, EstimateCheck> };

type CountAnswer = { count: number; unique_users: number; unique_sessions: number; estimated?: boolean };

const relativeError = (estimate: number, exact: number) => (exact === 0 ? (estimate === 0 ? 0 : 1) : round(Math.abs(estimate - exact) / exact, 4));

/**
 * Asks the API once for `query` and, when the answer says whether its distinct counts are
 * estimates (the `estimated` field), counts the same window exactly in SQL: production events
 * (is_dev false, the default data_mode) of the scope between `since` and the moment the answer came.
 */
async function checkEstimate(baseUrl: string, db: pg.Pool, key: string, scope: { column: "app_id" | "project_id"; id: string }, window: Window): Promise<EstimateCheck> {
  const asked = Date.now();
  const answer = await send(`${baseUrl}/v1/events/count?${scope.column}=${scope.id}&since=${window}`, { headers: { authorization: `Bearer ${key}` } });
  const answered = Date.now();
  if (answer.status !== 200) throw new Error(`GET /v1/events/count answered ${answer.status}: ${answer.text}`);
  const api = JSON.parse(answer.text) as CountAnswer;
  if (typeof api.estimated !== "boolean") return { estimated: "n/a" };
  const { rows } = await db.query<{ count: string; users: string; sessions: string }>(
    `select count(*) as count, count(distinct user_id) as users, count(distinct session_id) as sessions
       from events where ${scope.column} = $1 and not is_dev and "timestamp" >= $2 and "timestamp" <= $3`,
    [scope.id, new Date(asked - WINDOWS[window]), new Date(answered)],
  );
  const exact = { count: Number(rows[0]!.count), unique_users: Number(rows[0]!.users), unique_sessions: Number(rows[0]!.sessions) };
  return {
    estimated: api.estimated,
    api: { count: api.count, unique_users: api.unique_users, unique_sessions: api.unique_sessions },
    exact,
    users_error: relativeError(api.unique_users, exact.unique_users),
    sessions_error: relativeError(api.unique_sessions, exact.unique_sessions),
  };
}

/**
 * GET /v1/events/count by app and by project, over the last hour and the last day, from `clients`
 * concurrent sequential clients on one layout of events; then each of the four once more to check
 * its distinct counts against SQL.
 */
export async function measureCounts(baseUrl: string, db: pg.Pool, keys: KeyPacer<string>, layout: CountLayout, clients: number, perClient: number): Promise<CountFigures> {
  const latency: CountFigures["latency"] = {};
  const estimates: CountFigures["estimates"] = {};
  const scopes = [
    { name: "app", column: "app_id" as const, id: layout.appId },
    { name: "project", column: "project_id" as const, id: layout.projectId },
  ];
  for (const scope of scopes) {
    for (const window of Object.keys(WINDOWS) as Window[]) {
      const path = () => `/v1/events/count?${scope.column}=${scope.id}&since=${window}`;
      await measureConcurrentQuery(baseUrl, keys, path, clients, 2); // warm-up: plans, caches
      latency[`${scope.name}_${window}`] = await measureConcurrentQuery(baseUrl, keys, path, clients, perClient);
      estimates[`${scope.name}_${window}`] = await checkEstimate(baseUrl, db, await keys.acquire(), scope, window);
    }
  }
  return { layout: layout.name, latency, estimates };
}
