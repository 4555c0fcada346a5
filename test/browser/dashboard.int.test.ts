import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { openBrowser, screenshotFolder, type Browser } from "../support/browser.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { client } from "../support/http.ts";
import { latestCode } from "../support/outbox.ts";
import { buildOnce, cleanUp, freePort, spawnBuilt, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { dropDatabase, serviceEnv, testConfig } from "../support/service.ts";
import { dropNamespace } from "../support/streams.ts";
import { uniqueEmail } from "../support/users.ts";

/**
 * The dashboard in a real browser against what `npm start` runs (the build, then the compiled
 * service, which serves the bundle): sign in by code from the outbox, see an empty team, add a
 * project with events and an error over HTTP, and see the overview draw them. Every page is
 * photographed into test-results/dashboard/ for review.
 */

let service: OwnedProcess | undefined;
let config: Config | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await cleanUp([
    () => browser?.close(),
    () => service?.stop("SIGTERM"),
    () => config && dropNamespace(config.natsServers, config.namespace),
    () => config && dropDatabase(config.databaseUrl),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
  ]);
});

it("signs in by code, shows a project's overview with its charts and counts, and signs out", { timeout: 120_000 }, async () => {
  const shots = await screenshotFolder("dashboard");
  config = await testConfig();
  const port = await freePort();
  await buildOnce();
  service = spawnBuilt("apps/main.ts", { ...serviceEnv(config), PORT: String(port), HOST: "127.0.0.1" });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil("the service to answer", async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok, 60_000, 200);
  const http = client(baseUrl);

  // Routes are real URLs: any path below /dashboard is the page, revalidated on each load; the
  // hashed bundle it names is cached for a year; a missing asset is a 404, not the page.
  const deepLink = await fetch(`${baseUrl}/dashboard/issues/4f1c`);
  expect(deepLink.status).toBe(200);
  expect(deepLink.headers.get("cache-control")).toBe("no-cache");
  const html = await deepLink.text();
  const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  const asset = await fetch(`${baseUrl}${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  expect(asset.headers.get("content-type")).toMatch(/javascript/);
  expect((await fetch(`${baseUrl}/dashboard/assets/missing-0000.js`)).status).toBe(404);

  browser = await openBrowser();
  const { page, context } = browser;
  const shoot = (name: string, fullPage = false) => page.screenshot({ path: join(shots, `${name}.png`), fullPage });

  // Sign-in exactly as the API does it: the address, then the mailed code, then the cookie.
  await page.goto(`${baseUrl}/dashboard`);
  const email = uniqueEmail("dashboard");
  await page.locator("input[type=email]").fill(email);
  await shoot("01-sign-in-email");
  await page.getByRole("button", { name: "Email me a code" }).click();
  const codeInput = page.locator('input[autocomplete="one-time-code"]');
  await codeInput.waitFor();
  await codeInput.fill(await latestCode(config.mailOutboxDir, email));
  await shoot("02-sign-in-code");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("has no projects yet").waitFor();
  await shoot("03-overview-no-projects");

  const token = (await context.cookies(baseUrl)).find((cookie) => cookie.name === "token");
  expect(token?.httpOnly).toBe(true);
  const me = await http.get("/v1/auth/me", { token: token!.value });
  const teamId: string = me.body.teams[0].id;

  // A project with an app, six events from two users (one of them an error) and a metric's runs.
  const { project, app, clientKey } = await projectWithApp(http, token!.value, teamId, {}, { name: "Shop" });
  expect((await http.post(`/v1/projects/${project.id}/metrics`, { name: "Checkout", slug: "checkout" }, { token: token!.value })).status).toBe(201);
  const events = [
    anEvent({ user_id: "ada" }),
    anEvent({ user_id: "ada", message: "cart_opened" }),
    anEvent({ user_id: "grace" }),
    anEvent({ user_id: "grace", message: "metric:checkout:complete" }),
    anEvent({ user_id: "ada", message: "metric:checkout:fail" }),
    anEvent({ user_id: "grace", level: "error", message: "Payment declined: card expired" }),
  ];
  const sent = await ingest(http, clientKey, { bundle_id: app.bundle_id, events });
  expect(sent.body).toMatchObject({ accepted: events.length });
  await waitUntil(
    "the events and the issue to be readable",
    async () => {
      const [count, issues, metrics] = await Promise.all([
        http.get(`/v1/events/count?project_id=${project.id}&since=1h`, { token: token!.value }),
        http.get(`/v1/issues/count?project_id=${project.id}`, { token: token!.value }),
        http.get(`/v1/projects/${project.id}/metric-stats`, { token: token!.value }),
      ]);
      return count.body.count === events.length && issues.body.open === 1 && metrics.body.stats[0]?.fail_count === 1;
    },
    20_000,
    250,
  );

  // The overview at 1280×800: the project is picked by itself, the charts are drawn, the counts are right.
  await page.reload();
  const events24h = page.locator("[data-chart=events] .recharts-bar-rectangle");
  await events24h.first().waitFor();
  expect(await page.locator("[data-chart=errors] .recharts-bar-rectangle").count()).toBeGreaterThan(0);
  await expect.poll(() => page.locator("[data-figure=events]").textContent(), { timeout: 20_000 }).toBe(String(events.length));
  expect(await page.locator("[data-figure=errors]").textContent()).toBe("1");
  expect(await page.locator("[data-figure=active-users]").textContent()).toBe("2");
  expect(await page.locator("[data-figure=open-issues]").textContent()).toBe("1");
  expect(await page.locator("[data-status=new]").textContent()).toBe("1");
  await page.locator("table.rates tr", { hasText: "checkout" }).getByText("50.0 %").waitFor();
  await shoot("04-overview");

  // Keyboard: the first Tab from a fresh page reaches the skip link.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");

  // The range and data mode are in the URL; development events are not in production's counts.
  await page.getByText("7 days").click();
  await page.getByText("Development").click();
  await expect.poll(() => new URL(page.url()).searchParams.get("mode"), { timeout: 5_000 }).toBe("development");
  expect(new URL(page.url()).searchParams.get("range")).toBe("7d");
  await expect.poll(() => page.locator("[data-figure=events]").textContent(), { timeout: 20_000 }).toBe("0");
  await page.getByText("no events in this range").waitFor();
  await shoot("05-overview-7-days-development");
  await page.getByText("All", { exact: true }).click();
  await expect.poll(() => page.locator("[data-figure=events]").textContent(), { timeout: 20_000 }).toBe(String(events.length));

  // The range picker is a radio group: the arrow keys move through it.
  await page.locator("input[name=range][value='7d']").focus();
  await page.keyboard.press("ArrowLeft");
  await expect.poll(() => new URL(page.url()).searchParams.get("range"), { timeout: 5_000 }).toBe("24h");

  // A phone-width screen gets one column and the same data (the 24 hours' counts are still cached).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator("[data-chart=events] .recharts-bar-rectangle").first().waitFor();
  await shoot("06-overview-phone", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // A mail's deep link is a real URL: an issue no project of the user has says so.
  await page.goto(`${baseUrl}/dashboard/issues/4f1c`);
  await page.getByText("Issue not found").waitFor();
  await shoot("07-issue-not-found");

  // The team switcher: a second team has no projects.
  expect((await http.post("/v1/teams", { name: "Second team", slug: `second-${port}` }, { token: token!.value })).status).toBe(201);
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel("Team").selectOption({ label: "Second team" });
  await page.getByText("Second team has no projects yet").waitFor();
  await shoot("08-team-switched");

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.locator("input[type=email]").waitFor();
  expect((await context.cookies(baseUrl)).some((cookie) => cookie.name === "token")).toBe(false);
  await shoot("09-signed-out");

  console.log(`dashboard screenshots: ${shots}`);
});
