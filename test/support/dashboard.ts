import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../../apps/config.ts";
import { openBrowser, screenshotFolder, type Browser } from "./browser.ts";
import { client } from "./http.ts";
import { latestCode } from "./outbox.ts";
import { buildOnce, cleanUp, freePort, spawnBuilt, waitUntil, type OwnedProcess } from "./processes.ts";
import { dropDatabase, serviceEnv, testConfig } from "./service.ts";
import { dropNamespace } from "./streams.ts";
import { uniqueEmail } from "./users.ts";

type Page = Browser["page"];

/** Signs in on the dashboard's own page, as a person does: the address, then the mailed code. */
async function signInByCode(page: Page, baseUrl: string, outboxDir: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard`);
  await page.locator("input[type=email]").fill(email);
  await page.getByRole("button", { name: "Email me a code" }).click();
  const codeInput = page.locator('input[autocomplete="one-time-code"]');
  await codeInput.waitFor();
  await codeInput.fill(await latestCode(outboxDir, email));
  await page.getByRole("button", { name: "Sign in" }).click();
}

export type DashboardRun = {
  config: Config;
  baseUrl: string;
  http: ReturnType<typeof client>;
  browser: Browser;
  page: Page;
  email: string;
  /** The signed-in browser's `token` cookie, for setting up data over HTTP as the same user. */
  token: string;
  teamId: string;
  /** Saves the page as `test-results/<folder>/<name>.png`. */
  shoot: (name: string, fullPage?: boolean) => Promise<unknown>;
  close: () => Promise<void>;
};

/**
 * What `npm start` runs (the build, then the compiled service serving the bundle) with its own
 * database and streams, and a browser signed in to it by code: the start of every page's browser
 * test. Screenshots go to `test-results/<screenshots>/`; `env` adds to the service's environment
 * (a fake provider's URL, say).
 */
export async function signedInDashboard(screenshots: string, env: Record<string, string> = {}): Promise<DashboardRun> {
  const shots = await screenshotFolder(screenshots);
  const config = await testConfig();
  const port = await freePort();
  await buildOnce();
  let service: OwnedProcess | undefined;
  let browser: Browser | undefined;
  const close = () =>
    cleanUp([
      () => browser?.close(),
      () => service?.stop("SIGTERM"),
      () => dropNamespace(config.natsServers, config.namespace),
      () => dropDatabase(config.databaseUrl),
      () => rm(config.mailOutboxDir, { recursive: true, force: true }),
    ]);
  try {
    service = spawnBuilt("apps/main.ts", { ...serviceEnv(config), ...env, PORT: String(port), HOST: "127.0.0.1" });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntil("the service to answer", async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok, 60_000, 200);
    browser = await openBrowser();
    const { page, context } = browser;
    const email = uniqueEmail(screenshots);
    await signInByCode(page, baseUrl, config.mailOutboxDir, email);
    // The sign-in form is a <main id="main"> too: the signed-in frame is known by its sign-out button.
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const token = (await context.cookies(baseUrl)).find((cookie) => cookie.name === "token")?.value;
    if (!token) throw new Error("signed in, but the browser holds no token cookie");
    const http = client(baseUrl);
    const me = await http.get("/v1/auth/me", { token });
    return {
      config,
      baseUrl,
      http,
      browser,
      page,
      email,
      token,
      teamId: me.body.teams[0].id,
      shoot: (name, fullPage = false) => page.screenshot({ path: join(shots, `${name}.png`), fullPage }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
