import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildOnce, spawnBuilt, waitUntil } from "../test/support/processes.ts";

/** Peak resident set sizes in MB: of the service process, of its projector and worker children together, and their sum. */
export type PeakRss = { total: number; service: number; projector: number };

export type BenchService = { baseUrl: string; pid: number; peakRssMb: () => Promise<PeakRss>; rssMb: () => Promise<number>; stop: () => Promise<void> };

/**
 * Runs what `npm start` runs (the build, then the compiled service: the api, with the
 * projectors and the worker in its child process) as a child, so the load generator in this process and the
 * service are measured apart, as a real fleet and server are. `entry` runs another entry point
 * instead, e.g. `apps/api/main.ts` for a second API instance.
 */
export async function startBenchService(env: Record<string, string>, port: number, entry = "apps/main.ts"): Promise<BenchService> {
  // BENCH_SERVICE_NODE_OPTIONS reaches the service and its children, e.g. to load a profiler.
  const nodeOptions: Record<string, string> = process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {};
  // PROJECTOR_NICE, when set, reaches the service too, to compare the projector's priorities.
  const nice: Record<string, string> = process.env.PROJECTOR_NICE ? { PROJECTOR_NICE: process.env.PROJECTOR_NICE } : {};
  await buildOnce();
  const child = spawnBuilt(entry, { ...env, ...nodeOptions, ...nice, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", NODE_ENV: "production", JWT_SECRET: "bench-secret-bench-secret-bench-secret!!" });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil("the service to become ready", async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok, 60_000, 200).catch(
    (error: Error) => {
      throw new Error(`${error.message}\n${child.output()}`);
    },
  );
  return {
    baseUrl,
    pid: child.pid,
    /** The kernel's high-water marks of the service's resident sets (VmHWM), its children included. */
    peakRssMb: async () => {
      const peakKb = async (pid: string) => Number(/VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8").catch(() => ""))?.[1] ?? 0);
      const children = (await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").catch(() => "")).split(/\s+/).filter(Boolean);
      const service = await peakKb(String(child.pid));
      let projector = 0;
      for (const pid of children) projector += await peakKb(pid);
      const mb = (kb: number) => Math.round(kb / 1024);
      return { total: mb(service + projector), service: mb(service), projector: mb(projector) };
    },
    /** The service process's resident set now (VmRSS): the API, without its child. */
    rssMb: async () => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${child.pid}/status`, "utf8").catch(() => ""))?.[1] ?? 0) / 1024),
    stop: async () => {
      await child.stop("SIGTERM", 30_000);
      // The service logs at warn: what it said (a failed batch, a redelivery) explains an outlier.
      const said = child.output().trim();
      if (said === "") return;
      const file = join(tmpdir(), `bench-service-${child.pid}.log`);
      await writeFile(file, `${said}\n`);
      console.log(`[bench] the service logged ${said.split("\n").length} warning or error lines: ${file}`);
    },
  };
}
