import { loadConfig } from "./config.ts";
import { runEmbedded } from "./embedded.ts";
import { exitOnStartupError } from "./startup.ts";

await runEmbedded(loadConfig()).catch(exitOnStartupError);
