import { stopWithParent } from "../stop-with-parent.ts";

// A child process of `npm start` (apps/embedded.ts): the parts its arguments name (projector,
// worker) for the read models PROJECTORS names, at a lower CPU priority than the API.
// The parent is watched before the service's modules load: at that priority, on busy cores,
// loading them can take many seconds, and a parent killed meanwhile must not leave this behind.
stopWithParent();
const { loadConfig } = await import("../config.ts");
const { startOrExit } = await import("../startup.ts");
const { runUntilSignalled } = await import("../runtime.ts");
const named = process.argv.slice(2).filter((part) => part === "projector" || part === "worker");
await startOrExit(() => runUntilSignalled(loadConfig(), named.length > 0 ? named : ["projector", "worker"]));
