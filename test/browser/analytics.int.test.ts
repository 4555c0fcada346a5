import { afterAll, expect, it } from "vitest";
import { funnelQuery, getWhen, ingestAll, metricEvent, stepEvent, stepUsers } from "../support/analytics.ts";
import { projectWithApp } from "../support/catalog.ts";
import { signedInDashboard, type DashboardRun } from "../support/dashboard.ts";

/**
 * The metrics and funnels pages in a real browser against the built service. Data is set up over
 * HTTP as the signed-in user; definitions are made and changed through the pages, and what the
 * pages show is checked against what was sent and against the API's answers.
 */

let run: DashboardRun | undefined;

afterAll(async () => {
  await run?.close();
});

const ms = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
/** As the page writes a duration (the browser runs in en-US). */
const shownMs = (value: number) => `${ms.format(value)} ms`;

it("defines a metric and shows its runs, percentiles and errors; builds a funnel in the editor and runs it", { timeout: 180_000 }, async () => {
  run = await signedInDashboard("analytics");
  const { page, http, token, teamId, baseUrl, shoot } = run;
  const target = await projectWithApp(http, token, teamId, { name: "Shop iOS" }, { name: "Shop" });
  const projectId: string = target.project.id;

  // --- Metrics: an empty project first, then a definition made with the form.
  await page.goto(`${baseUrl}/dashboard/metrics?project=${projectId}`);
  await page.getByText("No metrics defined in this project yet.").waitFor();
  await shoot("01-metrics-empty");

  await page.getByRole("link", { name: "New metric" }).click();
  await page.getByLabel("Name").fill("Checkout v2");
  expect(await page.getByLabel("Slug").inputValue()).toBe("checkout-v2");
  await page.getByLabel("Slug").fill("checkout");
  await page.getByLabel("Description").fill("From cart to paid order");
  await page.getByLabel("Attribute schema (JSON, optional)").fill("{ not json");
  await page.getByRole("button", { name: "Create metric" }).click();
  await page.getByRole("alert").getByText("not valid JSON").waitFor();
  await page.getByLabel("Attribute schema (JSON, optional)").fill('{"type": "object"}');
  await page.getByLabel("Documentation (Markdown)").fill("Runs from **cart** to payment.");
  await shoot("02-metric-form");
  await page.getByRole("button", { name: "Create metric" }).click();
  await page.waitForURL(/\/dashboard\/metrics\/checkout\?/);
  const created = await http.get(`/v1/projects/${projectId}/metrics/checkout`, { token });
  expect(created.body).toMatchObject({ name: "Checkout v2", description: "From cart to paid order", schema_definition: { type: "object" }, documentation: "Runs from **cart** to payment." });
  await page.getByText("No runs of this metric in the last 24 hours").waitFor();
  await page.locator(".documentation strong", { hasText: "cart" }).waitFor();
  await shoot("03-metric-no-runs");

  // A slug already taken is refused by the API, and the form says so.
  await page.goto(`${baseUrl}/dashboard/metrics/new?project=${projectId}`);
  await page.getByLabel("Name").fill("Checkout");
  await page.getByRole("button", { name: "Create metric" }).click();
  await page.getByRole("alert").waitFor();
  expect(await page.getByRole("alert").textContent()).toMatch(/exists|taken|duplicate|already/i);

  // Ten completed runs of 100..1000 ms on two app versions, three failures with two errors.
  const now = new Date().toISOString();
  const completes = Array.from({ length: 10 }, (_, index) =>
    metricEvent("checkout", "complete", now, { user_id: `buyer-${index % 4}`, app_version: index < 6 ? "1.0" : "2.0" }, { duration_ms: String((index + 1) * 100) }),
  );
  const failures = [
    metricEvent("checkout", "fail", now, { user_id: "buyer-1", app_version: "2.0" }, { error: "card declined" }),
    metricEvent("checkout", "fail", now, { user_id: "buyer-2", app_version: "2.0" }, { error: "card declined" }),
    metricEvent("checkout", "fail", now, { user_id: "buyer-3", app_version: "1.0" }, { error: "gateway timeout" }),
  ];
  await ingestAll(http, target, [...completes, ...failures]);
  const query = await getWhen(http, token, `/v1/projects/${projectId}/metrics/checkout/query`, (body) => body.aggregation.total_count === 13);
  const aggregation = query.aggregation;

  await page.goto(`${baseUrl}/dashboard/metrics?project=${projectId}`);
  const row = page.locator("tr[data-metric=checkout]");
  await expect.poll(() => row.locator("td").nth(0).textContent(), { timeout: 20_000 }).toBe("10");
  expect(await row.locator("td").nth(1).textContent()).toBe("3");
  await row.getByText("76.9 %").waitFor();
  await shoot("04-metrics-list");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 5_000 }).toBeLessThanOrEqual(390);
  await shoot("04-metrics-list-phone", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  await row.getByRole("link", { name: "Checkout v2" }).click();
  await page.locator("[data-chart=runs] .recharts-bar-rectangle").first().waitFor();
  expect(await page.locator("[data-figure=runs]").textContent()).toBe("13");
  expect(await page.locator("[data-figure=failed]").textContent()).toBe("3");
  expect(await page.locator("[data-figure=success-rate]").textContent()).toBe("76.9 %");
  expect(await page.locator("[data-figure=users]").textContent()).toBe("4");
  expect(await page.locator("[data-chart=runs]").getAttribute("aria-label")).toBe("Runs per hour: 10 completed and 3 failed");
  for (const [label, field] of [["p50", "duration_p50_ms"], ["p95", "duration_p95_ms"], ["p99", "duration_p99_ms"]] as const) {
    expect(aggregation[field]).toBeGreaterThanOrEqual(100);
    expect(aggregation[field]).toBeLessThanOrEqual(1000);
    expect(await page.locator(`[data-percentile=${label}]`).textContent()).toBe(shownMs(aggregation[field]));
  }
  expect(await page.locator("[data-percentile=avg]").textContent()).toBe(shownMs(550));
  expect(await page.locator("tr[data-error='card declined'] td").textContent()).toBe("2");
  expect(await page.locator("tr[data-error='gateway timeout'] td").textContent()).toBe("1");
  await shoot("05-metric-runs", true);

  // Split by app version: in the URL, one row per version.
  await page.getByLabel("Split by").selectOption({ label: "App version" });
  await expect.poll(() => new URL(page.url()).searchParams.get("by")).toBe("app_version");
  await page.locator("tr[data-group='1.0']").waitFor();
  expect(await page.locator("tr[data-group='1.0'] td").allTextContents()).toEqual(["7", "6", "1", "85.7 %", shownMs(350)]);
  expect(await page.locator("tr[data-group='2.0'] td").allTextContents()).toEqual(["6", "4", "2", "66.7 %", shownMs(850)]);
  // Split by app: the API groups by id; the page names the app.
  await page.getByLabel("Split by").selectOption({ label: "App" });
  await page.locator(`tr[data-group='${target.app.id}'] th`, { hasText: "Shop iOS" }).waitFor();
  expect(await page.locator(`tr[data-group='${target.app.id}'] td`).first().textContent()).toBe("13");
  await page.getByLabel("Split by").selectOption({ label: "App version" });
  await page.locator("tr[data-group='1.0']").waitFor();
  await page.getByText("7 days").click();
  await expect.poll(() => new URL(page.url()).searchParams.get("range")).toBe("7d");
  await page.getByText("Runs per day").waitFor();
  await page.locator("[data-chart=runs] .recharts-bar-rectangle").first().waitFor();
  await shoot("06-metric-split-7-days", true);

  // Development data only: nothing was sent as development.
  await page.getByText("Development").click();
  await page.getByText("No runs of this metric in the last 7 days").waitFor();
  expect(await page.locator("[data-figure=runs]").textContent()).toBe("0");
  await page.getByText("No run failed in this range.").waitFor();
  await page.getByText("Production").click();

  // The view reloads as it was left, at phone width too.
  await page.reload();
  await page.locator("tr[data-group='2.0']").waitFor();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator("[data-chart=runs] .recharts-bar-rectangle").first().waitFor();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 5_000 }).toBeLessThanOrEqual(390);
  await shoot("07-metric-phone", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // Edit, then delete a second metric.
  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByLabel("Description").fill("Cart to receipt");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.waitForURL(/\/dashboard\/metrics\/checkout\?/);
  await page.getByText("Cart to receipt").waitFor();
  expect((await http.get(`/v1/projects/${projectId}/metrics/checkout`, { token })).body.description).toBe("Cart to receipt");

  expect((await http.post(`/v1/projects/${projectId}/metrics`, { name: "Search", slug: "search" }, { token })).status).toBe(201);
  await page.goto(`${baseUrl}/dashboard/metrics/search?project=${projectId}`);
  await page.getByRole("button", { name: "Delete" }).click();
  await shoot("08-metric-delete-confirm");
  await page.getByRole("button", { name: "Delete metric" }).click();
  await page.waitForURL(/\/dashboard\/metrics\?/);
  await page.locator("tr[data-metric=checkout]").waitFor();
  expect(await page.locator("tr[data-metric=search]").count()).toBe(0);
  expect((await http.get(`/v1/projects/${projectId}/metrics/search`, { token })).status).toBe(404);
  // Its old address says it is gone, once, and leads back.
  await page.goto(`${baseUrl}/dashboard/metrics/search?project=${projectId}`);
  await page.getByText("This project has no metric with the slug").waitFor();
  await shoot("09-metric-gone");
  await page.getByRole("link", { name: "See all metrics" }).click();
  await page.locator("tr[data-metric=checkout]").waitFor();

  // --- Funnels: built in the editor, steps put in order with the buttons.
  await page.getByRole("link", { name: "Funnels" }).click();
  await page.getByText("No funnels in this project yet.").waitFor();
  await shoot("10-funnels-empty");
  await page.getByRole("link", { name: "New funnel" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Onboarding");
  await page.getByLabel("Description").fill("From first launch to the first purchase");
  await page.getByLabel("Step 1 name").fill("Signed up");
  await page.getByLabel("Step 1 event").fill("signup");
  await page.getByLabel("Step 2 name").fill("Opened the app");
  await page.getByRole("button", { name: "Create funnel" }).click();
  await page.getByRole("alert").getByText("Step 2 needs a step name, a screen name or both").waitFor();
  await page.getByLabel("Step 2 event").fill("open");
  // Reordered from the keyboard: the focus stays on the moved step's button, and the move is announced.
  await page.getByRole("button", { name: "Move step 2 up" }).focus();
  await page.keyboard.press("Enter");
  expect(await page.getByLabel("Step 1 name").inputValue()).toBe("Opened the app");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Move step 1 up");
  expect(await page.locator("[aria-live=polite]").textContent()).toBe("Opened the app is now step 1 of 2.");
  await page.getByRole("button", { name: "Add step" }).click();
  await page.getByRole("button", { name: "Add step" }).click();
  await page.getByLabel("Step 4 name").fill("Never saved");
  await page.getByRole("button", { name: "Remove step 4" }).click();
  expect(await page.getByLabel("Step 4 name").count()).toBe(0);
  await page.getByLabel("Step 3 name").fill("Paid");
  await page.getByLabel("Step 3 event").fill("purchase");
  await shoot("11-funnel-editor", true);
  await page.getByRole("button", { name: "Create funnel" }).click();
  await page.waitForURL(/\/dashboard\/funnels\/onboarding(\?|$)/);
  const funnel = await http.get(`/v1/projects/${projectId}/funnels/onboarding`, { token });
  expect(funnel.body.steps).toEqual([
    { name: "Opened the app", event_filter: { step_name: "open" } },
    { name: "Signed up", event_filter: { step_name: "signup" } },
    { name: "Paid", event_filter: { step_name: "purchase" } },
  ]);
  await page.getByText("No user reached the first step in the last 30 days").waitFor();

  // Six users: all three steps; two steps; the first only (twice); the last only; the second before the first.
  const start = Date.now() - 20 * 60_000;
  const minute = (n: number) => new Date(start + n * 60_000).toISOString();
  const v1 = { app_version: "1.0" };
  const v2 = { app_version: "2.0" };
  const steps = [
    stepEvent("open", "u1", minute(0), v1),
    stepEvent("signup", "u1", minute(1), v1),
    stepEvent("purchase", "u1", minute(2), v1),
    stepEvent("open", "u2", minute(0), v1),
    stepEvent("signup", "u2", minute(1), v1),
    stepEvent("open", "u3", minute(0), v2),
    stepEvent("open", "u4", minute(0), v2),
    stepEvent("purchase", "u5", minute(2), v2),
    stepEvent("signup", "u6", minute(0), v2),
    stepEvent("open", "u6", minute(1), v2),
  ];
  await ingestAll(http, target, steps);
  await getWhen(http, token, `/v1/projects/${projectId}/funnels/onboarding/query`, (body) => body.analytics.total_users === 6);
  // Open: a user counts up to the furthest step reached; closed: only in order.
  expect(stepUsers(await funnelQuery(http, token, projectId, "onboarding", "mode=open"))).toEqual([6, 4, 2]);
  expect(stepUsers(await funnelQuery(http, token, projectId, "onboarding", "mode=closed"))).toEqual([5, 2, 1]);

  await page.reload();
  const stepRow = (index: number) => page.locator(`tr[data-step='${index}'] td`);
  await expect.poll(() => stepRow(0).first().textContent(), { timeout: 20_000 }).toBe("6");
  expect(await stepRow(1).allTextContents()).toEqual(["4", "66.7 %", "2", "33.3 %"]);
  expect(await stepRow(2).allTextContents()).toEqual(["2", "33.3 %", "2", "50.0 %"]);
  expect(await page.locator("[data-chart=funnel] .recharts-bar-rectangle").count()).toBeGreaterThanOrEqual(3);
  expect(await page.locator("[data-chart=funnel]").getAttribute("aria-label")).toBe("Users per step: 6 started, 2 reached the last step (33.3 %)");
  await shoot("12-funnel-open", true);

  // Closed counting and a breakdown by app version, both kept in the URL.
  await page.getByText("Closed", { exact: true }).click();
  await expect.poll(() => stepRow(0).first().textContent(), { timeout: 20_000 }).toBe("5");
  expect(await stepRow(1).allTextContents()).toEqual(["2", "40.0 %", "3", "60.0 %"]);
  expect(await stepRow(2).allTextContents()).toEqual(["1", "20.0 %", "1", "50.0 %"]);
  await page.getByLabel("Break down by").selectOption({ label: "App version" });
  const versionRow = (value: string) => page.locator(`tr[data-value='${value}'] td .users`);
  await versionRow("1.0").first().waitFor();
  expect(await versionRow("1.0").allTextContents()).toEqual(["2", "2", "1"]);
  expect(await versionRow("2.0").allTextContents()).toEqual(["3", "0", "0"]);
  const url = new URL(page.url());
  expect([url.searchParams.get("counting"), url.searchParams.get("by")]).toEqual(["closed", "app_version"]);
  const closedByVersion = await funnelQuery(http, token, projectId, "onboarding", "mode=closed&group_by=app_version");
  expect(closedByVersion.breakdown.map((row: any) => [row.value, stepUsers(row)]).sort()).toEqual([["1.0", [2, 2, 1]], ["2.0", [3, 0, 0]]]);
  await shoot("13-funnel-closed-by-version", true);

  // Opened from its URL the view is the same; open counting splits the versions differently.
  await page.reload();
  await versionRow("2.0").first().waitFor();
  await page.getByText("Open", { exact: true }).click();
  await expect.poll(() => versionRow("2.0").allTextContents(), { timeout: 20_000 }).toEqual(["4", "2", "1"]);
  await page.setViewportSize({ width: 390, height: 844 });
  // Nothing wider than the phone once the charts have followed the new width.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 5_000 }).toBeLessThanOrEqual(390);
  await page.locator("[data-chart=funnel] .recharts-bar-rectangle").first().waitFor();
  await shoot("14-funnel-phone", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // Edit the name; delete a second funnel; the list shows what is left.
  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Onboarding flow");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.waitForURL(/\/dashboard\/funnels\/onboarding(\?|$)/);
  await page.getByRole("heading", { name: "Onboarding flow" }).waitFor();
  expect((await http.get(`/v1/projects/${projectId}/funnels/onboarding`, { token })).body.name).toBe("Onboarding flow");
  const second = { name: "Paywall", slug: "paywall", steps: [{ name: "Saw the paywall", event_filter: { screen_name: "Paywall" } }] };
  expect((await http.post(`/v1/projects/${projectId}/funnels`, second, { token })).status).toBe(201);
  await page.goto(`${baseUrl}/dashboard/funnels/paywall?project=${projectId}`);
  await page.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("button", { name: "Delete funnel" }).click();
  await page.waitForURL(/\/dashboard\/funnels\?/);
  await page.locator("li[data-funnel=onboarding]").waitFor();
  expect(await page.locator("li[data-funnel=paywall]").count()).toBe(0);
  expect((await http.get(`/v1/projects/${projectId}/funnels/paywall`, { token })).status).toBe(404);
  await shoot("15-funnels-list");
});
