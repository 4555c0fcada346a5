import { loadConfig } from "../config.ts";
import { runUntilSignalled } from "../runtime.ts";
import { startOrExit } from "../startup.ts";

await startOrExit(() => runUntilSignalled(loadConfig(), ["worker"]));
