import { loadConfig } from "../config.ts";
import { runUntilSignalled, type Part } from "../runtime.ts";
import { exitOnStartupError, stopWithParent } from "../startup.ts";

// A child process of `npm start` (apps/embedded.ts): the parts its arguments name (projector,
// worker) for the read models PROJECTORS names, at a lower CPU priority than the API.
stopWithParent();
const named = process.argv.slice(2).filter((part): part is Part => part === "projector" || part === "worker");
await runUntilSignalled(loadConfig(), named.length > 0 ? named : ["projector", "worker"]).catch(exitOnStartupError);
