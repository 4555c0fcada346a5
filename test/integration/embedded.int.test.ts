import { readFile, rm } from "node:fs/promises";
import { afterAll, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { client } from "../support/http.ts";
import { cleanUp, freePort, spawnTsx, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { dropDatabase, serviceEnv, testConfig } from "../support/service.ts";
import { dropNamespace } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * `npm start`'s entry point: the API and worker in one process, the projectors in a child process
 * it supervises. Writes are answered only once the child has projected them, a killed child is
 * restarted, and SIGTERM stops both.
 */

let parent: OwnedProcess | undefined;
let config: Config | undefined;

afterAll(async () => {
  await cleanUp([
    () => parent?.stop("SIGKILL"),
    () => config && dropNamespace(config.natsServers, config.namespace),
    () => config && dropDatabase(config.databaseUrl),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
  ]);
});

const childrenOf = async (pid: number): Promise<number[]> =>
  (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "")).split(/\s+/).filter(Boolean).map(Number);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("runs the projectors in a supervised child process and stops both on SIGTERM", async () => {
  config = await testConfig();
  const port = await freePort();
  parent = spawnTsx("apps/main.ts", { ...serviceEnv(config), PORT: String(port), HOST: "127.0.0.1" });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil("the service to answer", async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok, 60_000, 200);
  const http = client(baseUrl);

  const [projector] = await waitUntil("the projector child", async () => ((await childrenOf(parent!.pid)).length > 0 ? childrenOf(parent!.pid) : false), 20_000);
  // verify-code creates a user and a team and answers only once the child projected them.
  const user = await signIn(http, config.mailOutboxDir);
  expect(user.teamId).toBeDefined();

  process.kill(projector!, "SIGKILL");
  const [replacement] = await waitUntil(
    "a new projector child",
    async () => {
      const children = await childrenOf(parent!.pid);
      return children.length > 0 && children[0] !== projector ? children : false;
    },
    20_000,
    100,
  );
  const renamed = await http.patch("/v1/auth/me", { name: "After restart" }, { token: user.token });
  expect(renamed.status).toBe(200);
  expect(renamed.body.user.name).toBe("After restart");

  await parent.stop("SIGTERM", 30_000);
  expect((await parent.exited).code).toBe(0);
  await waitUntil("the projector child to stop with its parent", () => !alive(replacement!), 10_000, 100);
});
