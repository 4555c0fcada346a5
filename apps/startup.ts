import { ConfigError } from "./config.ts";

/** Startup failures end the process with one clear line instead of a stack trace for config mistakes. */
export function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error("failed to start:", error);
  process.exit(1);
}

/** Runs `start`, sending a failure to exitOnStartupError, also a config mistake `start` throws before it returns a promise. */
export async function startOrExit(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (error) {
    exitOnStartupError(error);
  }
}
