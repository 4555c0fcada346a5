import { stopWithParent } from "../stop-with-parent.ts";

// `npm run start:projector`: the projectors alone, as many instances as wanted. The parent, if
// any, is watched before the service's modules load (see apps/background/main.ts).
stopWithParent();
const { loadConfig } = await import("../config.ts");
const { startOrExit } = await import("../startup.ts");
const { runUntilSignalled } = await import("../runtime.ts");
await startOrExit(() => runUntilSignalled(loadConfig(), ["projector"]));
