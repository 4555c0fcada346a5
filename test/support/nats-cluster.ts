import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NATS_SERVER_BIN } from "./nats-server.ts";
import { freePort, own, readyBeforeExit, waitUntil, type OwnedProcess } from "./processes.ts";

type Node = { name: string; clientPort: number; routePort: number; monitorPort: number; dir: string; process: OwnedProcess | undefined };

/** The part of a server's `/jsz` monitoring answer that says whether the JetStream cluster has formed. */
type Jsz = { meta_cluster?: { leader?: string; cluster_size?: number } };

/** A server's `/jsz?accounts=true&streams=true`: the streams it holds, and its view of their replicas. */
type JszStreams = {
  account_details?: { stream_detail?: { name: string; cluster?: { leader?: string; replicas?: { name: string; current: boolean; offline?: boolean }[] } }[] }[];
};

/**
 * A JetStream cluster of local nats-server processes that one test file owns, so it can kill any
 * node (the stream leader included) and start it again with its store. Ports are chosen up front:
 * each node's routes name the others'.
 */
export class NatsCluster {
  private constructor(
    readonly dir: string,
    private readonly nodes: Node[],
  ) {}

  /**
   * Starts `size` nodes. Their ports are picked before any node binds them, and a parallel test
   * can take one in between: a start that fails on a port in use is tried again with new ports.
   */
  static async start(size = 3, attempts = 3): Promise<NatsCluster> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await NatsCluster.#startOnce(size);
      } catch (error) {
        if (attempt >= attempts || !/address already in use/.test(String((error as Error).message))) throw error;
      }
    }
  }

  static async #startOnce(size: number): Promise<NatsCluster> {
    const dir = await mkdtemp(join(tmpdir(), "nats-cluster-"));
    const nodes: Node[] = [];
    for (let index = 1; index <= size; index += 1) {
      nodes.push({ name: `n${index}`, clientPort: await freePort(), routePort: await freePort(), monitorPort: await freePort(), dir: join(dir, `n${index}`), process: undefined });
    }
    const cluster = new NatsCluster(dir, nodes);
    try {
      for (const node of nodes) await cluster.#spawn(node);
      await cluster.waitForJetStream();
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  /** Every node's client URL: what NATS_URL lists for a client that fails over between them. */
  get urls(): string[] {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.clientPort}`);
  }

  get names(): string[] {
    return this.nodes.map((node) => node.name);
  }

  /** Stops a node by its server name: SIGKILL is a crash. */
  async stop(name: string, signal: "SIGTERM" | "SIGKILL" = "SIGKILL"): Promise<void> {
    const node = this.#node(name);
    const current = node.process;
    node.process = undefined;
    await current?.stop(signal, 10_000);
  }

  /** Starts a stopped node again with its store; it catches up from the others. */
  async restart(name: string): Promise<void> {
    const node = this.#node(name);
    if (node.process) throw new Error(`${name} is still running`);
    await this.#spawn(node);
  }

  /**
   * Until every running node reports a JetStream meta leader for a cluster of all the nodes (from
   * its monitoring port: no NATS client outside streams/), so streams can be placed on them.
   */
  async waitForJetStream(timeoutMs = 30_000): Promise<void> {
    const running = this.nodes.filter((node) => node.process);
    await waitUntil(
      "the cluster's JetStream meta leader",
      async () => {
        const answers = await Promise.all(running.map((node) => fetch(`http://127.0.0.1:${node.monitorPort}/jsz`).then((answer) => answer.json() as Promise<Jsz>).catch(() => undefined)));
        return answers.every((jsz) => jsz?.meta_cluster?.leader !== undefined && jsz.meta_cluster.cluster_size === this.nodes.length);
      },
      timeoutMs,
      200,
    );
  }

  /**
   * Until every stream on the cluster (KV buckets' included) has a leader that reports all its
   * replicas current: a node started again has caught up, and losing another one keeps a quorum.
   * Read from the leaders' monitoring ports; returns the streams' names.
   */
  async waitForStreamsCurrent(replicas = this.nodes.length, timeoutMs = 30_000): Promise<string[]> {
    return waitUntil(
      "every stream's replicas to be current",
      async () => {
        const running = this.nodes.filter((node) => node.process);
        const answers = await Promise.all(
          running.map(async (node) => ({
            server: node.name,
            jsz: (await (await fetch(`http://127.0.0.1:${node.monitorPort}/jsz?accounts=true&streams=true`)).json()) as JszStreams,
          })),
        );
        const names = new Set<string>();
        const healthy = new Set<string>();
        for (const { server, jsz } of answers) {
          for (const stream of (jsz.account_details ?? []).flatMap((account) => account.stream_detail ?? [])) {
            names.add(stream.name);
            const peers = stream.cluster?.replicas ?? [];
            const led = stream.cluster?.leader !== undefined && stream.cluster.leader === server;
            if (led && peers.length === replicas - 1 && peers.every((peer) => peer.current && !peer.offline)) healthy.add(stream.name);
          }
        }
        return names.size > 0 && [...names].every((name) => healthy.has(name)) ? [...names].sort() : undefined;
      },
      timeoutMs,
      200,
    );
  }

  output(): string {
    return this.nodes.map((node) => `--- ${node.name}\n${node.process?.output() ?? "(stopped)"}`).join("\n");
  }

  async dispose(): Promise<void> {
    for (const node of this.nodes) await this.stop(node.name).catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  #node(name: string): Node {
    const node = this.nodes.find((candidate) => candidate.name === name);
    if (!node) throw new Error(`no node ${name}; nodes: ${this.names.join(", ")}`);
    return node;
  }

  async #spawn(node: Node): Promise<void> {
    const routes = this.nodes.filter((other) => other !== node).map((other) => `"nats-route://127.0.0.1:${other.routePort}"`);
    const configFile = join(this.dir, `${node.name}.conf`);
    await writeFile(
      configFile,
      [
        `server_name: ${node.name}`,
        `listen: "127.0.0.1:${node.clientPort}"`,
        `http: "127.0.0.1:${node.monitorPort}"`,
        `jetstream { store_dir: "${node.dir}" }`,
        `cluster { name: test_cluster, listen: "127.0.0.1:${node.routePort}", routes: [${routes.join(", ")}] }`,
      ].join("\n"),
    );
    const child = own(NATS_SERVER_BIN, ["-c", configFile]);
    node.process = child;
    const listening = waitUntil(`${node.name} to listen`, async () => (await fetch(`http://127.0.0.1:${node.monitorPort}/healthz`).catch(() => undefined)) !== undefined, 15_000, 50);
    await readyBeforeExit(child, node.name, listening);
  }
}
