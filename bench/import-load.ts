import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Log } from "../streams/connection.ts";
import { streamHead } from "../test/support/streams.ts";
import { waitUntil } from "../test/support/processes.ts";
import { catchUpSeconds } from "./checkpoints.ts";
import { call } from "./fleet.ts";
import { send } from "./http-client.ts";
import { LEVELS } from "./ingest-load.ts";
import type { KeyPacer } from "./key-pacer.ts";
import { round } from "./stats.ts";

const BATCH = 1_000;
const SESSION_EVENTS = 20;
/**
 * Imported timestamps lie within this much before their batch is sent: well inside the last hour,
 * so a since=1h count still covers the first batch when the last one becomes countable, however
 * long the import takes (up to half an hour).
 */
const SPREAD_MS = 30 * 60_000;
const SCREENS = ["Home", "Onboarding", "Paywall", "Settings", "Feed"];

/** A project on its launch day: a few apps, each with its own import key. */
export type LaunchProject = { projectId: string; apps: { id: string; importKey: string }[] };

export async function createLaunchProject(baseUrl: string, token: string, teamId: string, slug: string, appCount: number): Promise<LaunchProject> {
  const project = await call(baseUrl, "POST", "/v1/projects", { team_id: teamId, name: "Launch day", slug }, token);
  const apps: LaunchProject["apps"] = [];
  for (let index = 0; index < appCount; index += 1) {
    const app = await call(baseUrl, "POST", "/v1/apps", { project_id: project.id, name: `Launch ${index}`, platform: "web", bundle_id: `launch${index}.example.com` }, token);
    const key = await call(baseUrl, "POST", "/v1/auth/keys", { name: `launch import ${index}`, key_type: "import", app_id: app.id }, token);
    apps.push({ id: app.id, importKey: key.api_key.secret });
  }
  return { projectId: project.id, apps };
}

/** One import body: `size` events in sessions of 20, each with its own client_event_id, all within the last half hour. */
function importBody(size: number, users: number): string {
  const now = Date.now();
  const events = [];
  let sessionId = "";
  let user = "";
  for (let index = 0; index < size; index += 1) {
    if (index % SESSION_EVENTS === 0) {
      sessionId = randomUUID();
      user = `launch-user-${Math.floor(Math.random() * users)}`;
    }
    events.push({
      message: `Viewed screen ${index % 9}`,
      level: LEVELS[index % LEVELS.length],
      session_id: sessionId,
      client_event_id: randomUUID(),
      user_id: user,
      screen_name: SCREENS[index % SCREENS.length],
      custom_attributes: { campaign: index % 3 === 0 ? "launch" : "organic" },
      environment: "web",
      app_version: "1.0.0",
      sdk_name: "web-sdk",
      sdk_version: "1.8.0",
      os_version: "macOS 15",
      device_model: "MacBookPro18,1",
      locale: "en_US",
      timestamp: new Date(now - Math.floor(Math.random() * SPREAD_MS)).toISOString(),
    });
  }
  return JSON.stringify({ events });
}

export type ImportFigures = {
  events: number;
  clients: number;
  batch_events: number;
  accepted: number;
  rejected: number;
  failed_batches: number;
  /** From the first POST to the last acknowledgement. */
  post_seconds: number;
  acknowledged_events_per_second: number;
  /** From the first POST until every INGEST read model is at the stream head and the API's count shows every event. */
  countable_seconds: number | null;
  /** End to end: imported events over countable_seconds; null when they never all became countable. */
  events_per_second: number | null;
  read_models_caught_up_seconds: Record<string, number>;
  error?: string;
};

export type ImportInput = { baseUrl: string; db: pg.Pool; streams: Log; project: LaunchProject; agentKeys: KeyPacer<string>; events: number; clients: number; users: number };

/**
 * `clients` clients post 1,000-event batches to POST /v1/import, each into its own app (the API
 * imports one batch per app at a time, so clients sharing an app would queue behind each other),
 * until `events` are acknowledged; then the time until all of them are countable: every read model
 * built from INGEST has applied the stream up to its head and GET /v1/events/count over the last
 * hour answers the total.
 */
export async function runImport(input: ImportInput): Promise<ImportFigures> {
  let left = input.events;
  let accepted = 0;
  let rejected = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: input.clients }, async (_, client) => {
      const app = input.project.apps[client % input.project.apps.length]!;
      while (left > 0) {
        const size = Math.min(BATCH, left);
        left -= size;
        const answer = await send(`${input.baseUrl}/v1/import`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${app.importKey}` },
          body: importBody(size, input.users),
        });
        if (answer.status !== 200) {
          failed += 1;
          continue;
        }
        const outcome = JSON.parse(answer.text) as { accepted: number; updated: number; rejected: number };
        accepted += outcome.accepted + outcome.updated;
        rejected += outcome.rejected;
      }
    }),
  );
  const posted = performance.now();
  const figures: ImportFigures = {
    events: input.events,
    clients: input.clients,
    batch_events: BATCH,
    accepted,
    rejected,
    failed_batches: failed,
    post_seconds: round((posted - started) / 1000),
    acknowledged_events_per_second: Math.round(accepted / ((posted - started) / 1000)),
    countable_seconds: null,
    events_per_second: null,
    read_models_caught_up_seconds: {},
  };
  try {
    figures.read_models_caught_up_seconds = await catchUpSeconds(input.db, await streamHead(input.streams, "INGEST"), 1_200_000);
    const path = `${input.baseUrl}/v1/events/count?project_id=${input.project.projectId}&since=1h`;
    await waitUntil(
      "the imported events to be counted",
      async () => {
        const answer = await send(path, { headers: { authorization: `Bearer ${await input.agentKeys.acquire()}` } });
        return answer.status === 200 && (JSON.parse(answer.text) as { count: number }).count >= accepted;
      },
      600_000,
      100,
    );
    const countable = (performance.now() - started) / 1000;
    figures.countable_seconds = round(countable);
    figures.events_per_second = Math.round(accepted / countable);
  } catch (error) {
    figures.error = error instanceof Error ? error.message : String(error);
  }
  return figures;
}
