import { loadConfig } from "./config.ts";
import { runEmbedded } from "./embedded.ts";
import { startOrExit } from "./startup.ts";

await startOrExit(() => runEmbedded(loadConfig()));
