import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { ProgressLine } from "./progress.ts";
import { errorOf, requestWithRetries, type ServiceTarget } from "./service-client.ts";

export type ExportOptions = { appId?: string; projectId?: string; since?: string; until?: string; dataMode?: string; out?: string };

/**
 * `npm run cli -- export`: `GET /v1/events/export` of a running service into an NDJSON file (or
 * stdout), gzip on the wire, with a progress line and a summary. The total for the progress bar
 * comes from `GET /v1/events/count` with the same filters.
 */
export async function exportEvents(target: ServiceTarget, options: ExportOptions): Promise<{ events: number; seconds: number }> {
  if (!options.appId && !options.projectId) throw new Error("export needs --app-id or --project-id");
  const query = new URLSearchParams();
  if (options.appId) query.set("app_id", options.appId);
  if (options.projectId) query.set("project_id", options.projectId);
  if (options.since) query.set("since", options.since);
  if (options.until) query.set("until", options.until);
  query.set("data_mode", options.dataMode ?? "all");

  const counted = await requestWithRetries(target, `/v1/events/count?${query}`);
  const total = counted.ok ? ((await counted.json()) as { count: number }).count : (await counted.body?.cancel(), null);
  const response = await requestWithRetries(target, `/v1/events/export?${query}`, { headers: { "accept-encoding": "gzip" } });
  if (!response.ok || !response.body) throw new Error(`export refused (${response.status}): ${await errorOf(response)}`);

  const out = options.out ? createWriteStream(options.out) : process.stdout;
  const progress = new ProgressLine("exported", total);
  let events = 0;
  // fetch undoes the gzip; lines are counted as the bytes pass.
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    for (const byte of chunk) if (byte === 10) events += 1;
    if (!out.write(chunk)) await once(out, "drain");
    progress.update(events);
  }
  if (out !== process.stdout) {
    out.end();
    await once(out, "finish");
  }
  return { events, seconds: progress.finish(events) };
}
