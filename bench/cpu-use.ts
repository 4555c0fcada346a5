import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { round } from "./stats.ts";

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`: 100 on Linux). */
const TICKS = 100;

type Times = { own: number; exited: number };

/** utime + stime of a process, and of its children that exited (cutime + cstime), in seconds; zeros once it is gone. */
async function timesOf(pid: number): Promise<Times> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  if (fields.length < 15) return { own: 0, exited: 0 };
  return { own: (fields[11]! + fields[12]!) / TICKS, exited: (fields[13]! + fields[14]!) / TICKS };
}

const childrenOf = async (pid: number): Promise<number[]> =>
  (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "")).split(/\s+/).filter(Boolean).map(Number);

async function pidsNamed(name: string): Promise<number[]> {
  const { stdout } = await promisify(execFile)("pgrep", ["-x", name]).catch(() => ({ stdout: "" }));
  return stdout.split(/\s+/).filter(Boolean).map(Number);
}

/** CPU seconds used so far by each part: the API process, each background child, every Postgres process (exited backends included), the NATS server and this load generator. */
async function cpuNow(servicePid: number): Promise<Record<string, number>> {
  const parts: Record<string, number> = { api: (await timesOf(servicePid)).own };
  for (const [index, child] of (await childrenOf(servicePid)).entries()) parts[`background ${index + 1}`] = (await timesOf(child)).own;
  let postgres = 0;
  for (const pid of await pidsNamed("postgres")) {
    const times = await timesOf(pid);
    // The postmaster's exited children are the backends that have closed since the server started.
    postgres += times.own + times.exited;
  }
  parts.postgres = postgres;
  // The JetStream server stores every published fact and delivers it to each reader of its stream.
  let nats = 0;
  for (const pid of await pidsNamed("nats-server")) nats += (await timesOf(pid)).own;
  parts.nats = nats;
  parts["bench client"] = (await timesOf(process.pid)).own;
  return parts;
}

export type CpuUse = { seconds: Record<string, number>; microseconds_per_event: Record<string, number>; cores_busy: number };

/**
 * Measures where the machine's CPU goes while `work` runs: CPU seconds per part (read from
 * /proc: the whole Postgres and NATS servers, not only this service's database and streams) and per event of `events`.
 * Background children are numbered as `npm start` forks them (1: the events read model, 2: the
 * other read models and the worker).
 */
export async function measureCpu<T>(servicePid: number, events: () => number, work: () => Promise<T>): Promise<{ result: T; cpu: CpuUse }> {
  const before = await cpuNow(servicePid);
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const after = await cpuNow(servicePid);
  const used: Record<string, number> = {};
  const perEvent: Record<string, number> = {};
  for (const [part, total] of Object.entries(after)) {
    used[part] = round(total - (before[part] ?? 0));
    perEvent[part] = round(((total - (before[part] ?? 0)) / Math.max(1, events())) * 1e6);
  }
  return { result, cpu: { seconds: used, microseconds_per_event: perEvent, cores_busy: round(Object.values(used).reduce((sum, value) => sum + value, 0) / seconds) } };
}
