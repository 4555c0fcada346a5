import { fork } from "node:child_process";
import { measureQueryWhile, type QueryFigures } from "./queries.ts";
import { KeyPacer } from "./key-pacer.ts";

/** What the parent sends to start the loop. */
type Start = { baseUrl: string; keys: string[]; perKeyPerSecond: number; path: string };

/**
 * One client's sequential requests of `path`, run in a process of its own until `stop`: a
 * dashboard user is another machine, and a client sharing the bench's event loop would time the
 * bench's own work (generating and publishing a backlog blocks it for milliseconds at a time) as
 * the service's answer.
 */
export function queryInOwnProcess(start: Start): { stop: () => Promise<QueryFigures> } {
  const child = fork(new URL(import.meta.url), [], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  const figures = new Promise<QueryFigures>((resolve, reject) => {
    child.once("message", (message) => resolve(message as QueryFigures));
    child.once("exit", (code) => reject(new Error(`the query process exited (${code}) before answering`)));
  });
  child.send(start);
  return {
    stop: async () => {
      child.send("stop");
      return figures;
    },
  };
}

// The child: loops until the parent says stop, then answers with the figures.
if (process.send !== undefined && process.argv[1] === new URL(import.meta.url).pathname) {
  let running = true;
  // A bench that died leaves no client behind.
  process.on("disconnect", () => process.exit(0));
  process.on("message", (message: Start | "stop") => {
    if (message === "stop") {
      running = false;
      return;
    }
    const keys = new KeyPacer(message.keys, message.perKeyPerSecond);
    void measureQueryWhile(message.baseUrl, keys, () => message.path, () => running).then((figures) => {
      process.send!(figures, () => process.exit(0));
    });
  });
}
