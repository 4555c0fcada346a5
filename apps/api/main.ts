import { loadConfig } from "../config.ts";
import { runUntilSignalled } from "../runtime.ts";
import { exitOnStartupError } from "../startup.ts";

await runUntilSignalled(loadConfig(), ["api"]).catch(exitOnStartupError);
