import { randomUUID } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { aFile, reserveAndUpload } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { signedInDashboard, type DashboardRun } from "../support/dashboard.ts";

/**
 * The events explorer in a real browser against the compiled service: events ingested over HTTP
 * are found with the filters (all kept in the URL), paged through with the cursor, opened as a
 * detail with their attributes and an attachment's download link; then the live tail is switched
 * on and events ingested afterwards appear in it within a couple of seconds. Every page and state
 * is photographed into test-results/events/.
 */

let run: DashboardRun | undefined;
afterAll(async () => run?.close());

it("finds ingested events with filters, pages, opens a detail with attributes and an attachment, and follows the live tail", { timeout: 180_000 }, async () => {
  run = await signedInDashboard("events");
  const { page, http, token, teamId, baseUrl, shoot } = run;

  // The empty state first: a team with no events.
  await page.getByRole("link", { name: "Events" }).click();
  await page.getByText("No events match these filters").waitFor();
  await shoot("01-empty");

  // 60 screen views (more than a page of 50), and one error with custom attributes and a file.
  const { project, app, clientKey } = await projectWithApp(http, token, teamId, {}, { name: "Shop" });
  const base = Date.now() - 10 * 60_000;
  const views = Array.from({ length: 60 }, (_, index) =>
    anEvent({ message: `screen_view ${index}`, user_id: index % 2 === 0 ? "ada" : "grace", screen_name: index % 3 === 0 ? "Home" : "Cart", timestamp: new Date(base + index * 1000).toISOString() }),
  );
  const errorId = randomUUID();
  const failure = anEvent({
    client_event_id: errorId,
    level: "error",
    message: "Payment declined: card expired",
    user_id: "grace",
    screen_name: "Checkout",
    app_version: "2.4.1",
    custom_attributes: { card: "visa", amount: "12.50" },
    timestamp: new Date(base + 61_000).toISOString(),
  });
  const sent = await ingest(http, clientKey, { bundle_id: app.bundle_id, events: [...views, failure] });
  expect(sent.body).toMatchObject({ accepted: 61 });
  await reserveAndUpload(http, clientKey, aFile(2_048), { client_event_id: errorId, original_filename: "screenshot.png", content_type: "image/png" });
  const [stored] = await eventsWhen(http, token, `project_id=${project.id}&level=error`, (events) => events.length === 1);

  // The whole list, newest first, at 1280×800: the error leads, and a second page exists.
  await page.reload();
  const rows = page.getByRole("list", { name: "Events" }).getByRole("listitem");
  await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(50);
  expect(await rows.first().textContent()).toContain("Payment declined");
  await shoot("02-list");

  // Paging: the second page holds the remaining 11, and "First page" returns.
  await page.getByRole("button", { name: "Next page →" }).click();
  await expect.poll(() => rows.count()).toBe(11);
  expect(page.url()).toContain("cursor=");
  expect(await rows.last().textContent()).toContain("screen_view 0");
  await expect.poll(() => page.getByRole("button", { name: "Next page →" }).isDisabled()).toBe(true);
  await shoot("03-second-page");
  await page.getByRole("button", { name: "← First page" }).click();
  await expect.poll(() => rows.count()).toBe(50);
  expect(page.url()).not.toContain("cursor=");

  // Filters: project and app, level, a typed user and screen, oldest first; each in the URL.
  await page.getByRole("combobox", { name: /^Project/ }).selectOption({ label: "Shop" });
  await page.getByRole("combobox", { name: /^App/ }).selectOption(app.id);
  await page.getByLabel("User id").fill("ada");
  await page.getByLabel("Screen").fill("Home");
  await page.getByRole("button", { name: "Apply" }).click();
  // Every third of the even-numbered views: 0, 6, 12, ... 54.
  await expect.poll(() => rows.count()).toBe(10);
  await page.getByRole("combobox", { name: /^Order/ }).selectOption("asc");
  await expect.poll(async () => (await rows.first().textContent()) ?? "").toContain("screen_view 0");
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toMatchObject({ project: project.id, app_id: app.id, user_id: "ada", screen_name: "Home", order: "asc" });
  await shoot("04-filtered");
  // The same view after a reload: the URL is the state.
  await page.reload();
  await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(10);
  expect(await page.getByLabel("User id").inputValue()).toBe("ada");

  await page.getByRole("button", { name: "Clear filters" }).click();
  // The boxes follow the URL, which changes just after the click: click, then read the URL.
  await page.getByRole("checkbox", { name: "error" }).click();
  await expect.poll(() => rows.count()).toBe(1);
  expect(new URL(page.url()).searchParams.get("level")).toBe("error");
  await page.getByRole("checkbox", { name: "warn" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get("level")).toBe("warn,error");
  // The box is drawn from the URL after it changes: wait for it too.
  await expect.poll(() => page.getByRole("checkbox", { name: "warn" }).isChecked()).toBe(true);
  await expect.poll(() => rows.count()).toBe(1);
  await page.getByRole("radio", { name: "Development" }).click();
  await page.getByText("No events match these filters").waitFor();
  await shoot("05-filtered-empty");
  await page.getByRole("radio", { name: "Production" }).click();
  await expect.poll(() => rows.count()).toBe(1);

  // The error's detail: its fields and custom attributes as tables, its attachment with a link that downloads it.
  await rows.first().getByRole("link").click();
  await page.getByRole("heading", { name: /Payment declined/ }).waitFor();
  expect(page.url()).toContain(`/dashboard/events/${stored.id}`);
  const fields = page.getByRole("table", { name: "Event" });
  expect(await fields.getByRole("row", { name: /App version/ }).textContent()).toContain("2.4.1");
  expect(await fields.getByRole("row", { name: /^User/ }).first().textContent()).toContain("grace");
  const custom = page.getByRole("table", { name: "Custom attributes" });
  expect(await custom.getByRole("row", { name: /amount/ }).textContent()).toContain("12.50");
  expect(await custom.getByRole("row", { name: /card/ }).textContent()).toContain("visa");
  const download = page.getByRole("link", { name: "screenshot.png" });
  await download.waitFor({ timeout: 20_000 });
  const href = await download.getAttribute("href");
  const file = await fetch(`${baseUrl}${href}`);
  expect(file.status).toBe(200);
  expect((await file.arrayBuffer()).byteLength).toBe(2_048);
  await shoot("06-detail", true);
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot("07-detail-phone", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // Back to the list with its filters; then the live tail under them (level error).
  await page.getByRole("link", { name: "← Back to events" }).click();
  await expect.poll(() => rows.count()).toBe(1);
  await page.getByRole("switch", { name: "Follow new events" }).click();
  await page.getByRole("status").filter({ hasText: "Connected" }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).searchParams.get("live")).toBe("1");
  await shoot("08-live-waiting");

  const live = page.getByRole("list", { name: "Live events" }).getByRole("listitem");
  const sentAt = Date.now();
  await ingest(http, clientKey, {
    bundle_id: app.bundle_id,
    events: [anEvent({ level: "info", message: "not shown: info" }), anEvent({ level: "error", message: "Timeout talking to the bank" }), anEvent({ level: "warn", message: "Retrying payment" })],
  });
  await live.first().waitFor({ timeout: 3_000 });
  await expect.poll(() => live.count(), { timeout: 3_000 }).toBe(2);
  expect(Date.now() - sentAt).toBeLessThan(3_000);
  // Newest first: the batch's events arrive in order, each prepended.
  expect(await live.first().textContent()).toContain("Retrying payment");
  expect(await live.last().textContent()).toContain("Timeout talking to the bank");
  await shoot("09-live-events");

  await page.setViewportSize({ width: 390, height: 844 });
  await shoot("10-live-phone", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // A detail opened from the tail (asked for again until the event is stored); the tail keeps
  // what it received meanwhile.
  await live.first().getByRole("link").click();
  await page.getByRole("heading", { name: /Retrying payment/ }).waitFor({ timeout: 10_000 });
  await page.getByText("No files were attached to this event.").waitFor();
  await page.goBack();
  await page.getByRole("status").filter({ hasText: "Connected" }).waitFor({ timeout: 10_000 });
  expect(await live.count()).toBe(2);

  // A time the API cannot read: the list says why, and the tail, refused the same way, says it stopped.
  await page.getByLabel("Since").fill("yesterday");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByRole("alert").filter({ hasText: "since: must be a relative time" }).waitFor();
  await page.getByRole("status").filter({ hasText: "Stopped" }).waitFor({ timeout: 10_000 });
  await shoot("11-bad-filter");
  await page.getByLabel("Since").fill("");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByRole("status").filter({ hasText: "Connected" }).waitFor({ timeout: 10_000 });
  await expect.poll(() => rows.count()).toBe(1);

  // Switched off, the tail stops and says so; the URL forgets it.
  await page.getByRole("switch", { name: "Follow new events" }).click();
  await page.getByRole("status").filter({ hasText: "Off" }).waitFor();
  expect(new URL(page.url()).searchParams.get("live")).toBeNull();
});
