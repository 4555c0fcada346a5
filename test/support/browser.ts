import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { REPO_ROOT } from "./processes.ts";

/** Debian's chromium (.ci/run installs it): playwright-core drives it, it never downloads a browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Quiet and self-contained: no GPU, no QUIC, no first-run pages and no calls home, which a test machine may not reach. */
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export type Browser = { context: BrowserContext; page: Page; close: () => Promise<void> };

/** A browser with a fresh profile (no cookies or storage from another run), one page open at 1280×800. */
export async function openBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Where a test's screenshots go, for reviewers to look at: `test-results/<name>/` (git-ignored),
 * emptied first so it only holds this run's pages.
 */
export async function screenshotFolder(name: string): Promise<string> {
  const folder = join(REPO_ROOT, "test-results", name);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  return folder;
}
