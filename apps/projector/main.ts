import { loadConfig } from "../config.ts";
import { runUntilSignalled } from "../runtime.ts";
import { exitOnStartupError } from "../startup.ts";

// Started by `npm start` as its child: stop with the parent, even when the parent was killed.
if (process.send) process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));

await runUntilSignalled(loadConfig(), ["projector"]).catch(exitOnStartupError);
