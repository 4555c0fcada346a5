import { loadConfig } from "../config.ts";
import { runUntilSignalled } from "../runtime.ts";
import { exitOnStartupError, stopWithParent } from "../startup.ts";

// `npm start`'s child process (apps/embedded.ts): the projectors and the worker, everything that
// is not answering a request, at a lower CPU priority than the API.
stopWithParent();
await runUntilSignalled(loadConfig(), ["projector", "worker"]).catch(exitOnStartupError);
