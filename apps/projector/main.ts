import { loadConfig } from "../config.ts";
import { runUntilSignalled } from "../runtime.ts";
import { exitOnStartupError, stopWithParent } from "../startup.ts";

// `npm run start:projector`: the projectors alone, as many instances as wanted.
stopWithParent();
await runUntilSignalled(loadConfig(), ["projector"]).catch(exitOnStartupError);
