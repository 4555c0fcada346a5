import { send } from "./http-client.ts";
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
