import { send } from "./http-client.ts";
import type { KeyPacer } from "./key-pacer.ts";
import { Samples, timed } from "./stats.ts";

/**
 * Sequential requests (one in flight, as a dashboard user waits for each), rotating over agent
 * keys so the per-key rate limit never answers instead of the query.
 */
export async function measureQuery(baseUrl: string, agentKeys: string[], path: () => string, count: number) {
  const samples = new Samples();
  let failed = 0;
  for (let index = 0; index < count; index += 1) {
    const { ms, value: status } = await timed(async () => {
      const answer = await send(`${baseUrl}${path()}`, { headers: { authorization: `Bearer ${agentKeys[index % agentKeys.length]}` } });
      return answer.status;
    });
    if (status === 200) samples.add(ms);
    else failed += 1;
    // Stay under 10 requests a second per key.
    if ((index + 1) % agentKeys.length === 0) await new Promise((resolve) => setTimeout(resolve, 110));
  }
  return { ...samples.summary(), failed };
}

export type QueryFigures = ReturnType<Samples["summary"]> & { failed: number };

/** One client: sequential requests with keys from `keys` until `more` says stop; 200s are timed, the rest counted. */
async function oneClient(baseUrl: string, keys: KeyPacer<string>, path: () => string, more: (sent: number) => boolean, samples: Samples): Promise<number> {
  let failed = 0;
  for (let sent = 0; more(sent); sent += 1) {
    const key = await keys.acquire();
    const { ms, value: status } = await timed(async () => (await send(`${baseUrl}${path()}`, { headers: { authorization: `Bearer ${key}` } })).status);
    if (status === 200) samples.add(ms);
    else failed += 1;
  }
  return failed;
}

/**
 * Sequential requests for as long as `running()` holds, e.g. while the projector drains a backlog:
 * what a dashboard user sees while the read model is being written, not after.
 */
export async function measureQueryWhile(baseUrl: string, keys: KeyPacer<string>, path: () => string, running: () => boolean): Promise<QueryFigures> {
  const samples = new Samples();
  const failed = await oneClient(baseUrl, keys, path, () => running(), samples);
  return { ...samples.summary(), failed };
}

/**
 * `clients` concurrent clients, each sequential (a dashboard's panels, several users), `perClient`
 * requests each; every client takes the key free soonest from the shared pacer.
 */
export async function measureConcurrentQuery(baseUrl: string, keys: KeyPacer<string>, path: () => string, clients: number, perClient: number): Promise<QueryFigures & { clients: number }> {
  const samples = new Samples();
  const failures = await Promise.all(Array.from({ length: clients }, () => oneClient(baseUrl, keys, path, (sent) => sent < perClient, samples)));
  return { ...samples.summary(), failed: failures.reduce((sum, n) => sum + n, 0), clients };
}
