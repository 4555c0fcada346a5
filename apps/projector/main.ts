import { loadConfig } from "../config.ts";
import { runUntilSignalled } from "../runtime.ts";
import { exitOnStartupError } from "../startup.ts";

// Started by `npm start` as its child: stop with the parent, even when the parent was killed,
// also when that happened while this process was still loading (the event has then passed).
if (process.send) {
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  if (!process.connected) process.kill(process.pid, "SIGTERM");
}

await runUntilSignalled(loadConfig(), ["projector"]).catch(exitOnStartupError);
