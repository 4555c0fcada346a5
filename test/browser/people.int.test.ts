import { afterAll, expect, it } from "vitest";
import { projectWithApp } from "../support/catalog.ts";
import { signedInDashboard, type DashboardRun } from "../support/dashboard.ts";
import { anEvent, ingest } from "../support/events.ts";
import { startFakeSubprov } from "../support/fake-subprov.ts";
import { waitUntil } from "../support/processes.ts";

/**
 * The people-facing pages in a real browser: the unread badge and the notifications inbox, the
 * users list and a user's page, the feedback inbox and a feedback's detail, the job runs, and the
 * navigation folded behind a menu button on a phone. Data is set up over HTTP as the signed-in
 * user (and an app's client key); the API is asked afterwards whether the clicks changed it.
 * Screenshots go to test-results/people/.
 */

const PROVIDER_KEY = "sk_people_test";
const PROVIDER_PROJECT = "proj_people";
/** How long the fake provider sits on the customer list: the backfill run stays running that long, unless cancelled. */
const STALL_MS = 90_000;

let run: DashboardRun | undefined;
let provider: Awaited<ReturnType<typeof startFakeSubprov>> | undefined;
afterAll(async () => {
  await run?.close();
  await provider?.close();
});

it("shows notifications, users, feedback and jobs, and folds the navigation on a phone", { timeout: 180_000 }, async () => {
  provider = await startFakeSubprov({ apiKey: PROVIDER_KEY, projectId: PROVIDER_PROJECT });
  run = await signedInDashboard("people", { SUBPROV_BASE_URL: provider.baseUrl, SUBPROV_TIMEOUT_MS: String(STALL_MS * 2) });
  const { page, http, token, teamId, baseUrl, shoot } = run;
  const as = { token };
  const url = () => new URL(page.url());
  const unreadCount = async () => (await http.get("/v1/notifications/unread-count", as)).body.count as number;

  // A project whose app saw two users; Ada has properties and sent feedback; an issue scan was started with notify on.
  const { project, app, clientKey } = await projectWithApp(http, token, teamId, { name: "iOS app" }, { name: "Shop" });
  const sent = await ingest(http, clientKey, {
    bundle_id: app.bundle_id,
    events: [
      anEvent({ user_id: "ada", message: "checkout_opened", screen_name: "Cart", app_version: "2.4.0" }),
      anEvent({ user_id: "ada", message: "Payment declined", level: "warn", screen_name: "Checkout", app_version: "2.4.0" }),
      anEvent({ user_id: "grace", message: "screen_view", app_version: "2.3.1" }),
    ],
  });
  expect(sent.body).toMatchObject({ accepted: 3 });
  const properties = await http.post("/v1/identity/properties", { user_id: "ada", properties: { plan: "pro", referrer: "newsletter" } }, { token: clientKey });
  expect(properties.status).toBe(200);
  const feedback = await http.post(
    "/v1/feedback",
    { bundle_id: app.bundle_id, message: "The export button does nothing on my iPad.", user_id: "ada", submitter_name: "Ada", environment: "ios", app_version: "2.4.0" },
    { token: clientKey },
  );
  expect(feedback.status).toBe(201);
  const feedbackId: string = feedback.body.id;
  const triggered = await http.post(`/v1/teams/${teamId}/jobs/trigger`, { job_type: "issue_scan", project_id: project.id, notify: true }, as);
  expect(triggered.status).toBe(201);
  const runId: string = triggered.body.job_run.id;

  await waitUntil(
    "the users, the finished run and both notifications to be readable",
    async () => {
      const [users, job] = await Promise.all([http.get(`/v1/app-users?project_id=${project.id}`, as), http.get(`/v1/jobs/${runId}`, as)]);
      return users.body.users?.length === 2 && job.body.job_run?.status === "completed" && (await unreadCount()) === 2;
    },
    30_000,
    300,
  );

  // The badge: two unread, said in words to screen readers.
  await page.reload();
  const inboxLink = page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: /^Notifications/ });
  await expect.poll(() => inboxLink.textContent(), { timeout: 10_000 }).toBe("Notifications2, 2 unread");
  expect(await inboxLink.getAttribute("aria-current")).toBeNull();
  await shoot("01-nav-with-unread-badge");

  // The inbox: both notifications, newest first; the unread filter is in the URL.
  await inboxLink.click();
  const items = page.getByRole("main").getByRole("listitem");
  await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(2);
  const jobNotice = page.getByRole("listitem", { name: "Job issue_scan completed" });
  const feedbackNotice = page.getByRole("listitem", { name: "New feedback in Shop" });
  await feedbackNotice.getByText("Ada: The export button does nothing on my iPad.").waitFor();
  await shoot("02-notifications");
  await page.getByText("Unread", { exact: true }).click();
  await expect.poll(() => url().searchParams.get("read_state")).toBe("unread");

  // Marking one read drops it from the unread view and the badge to one, here and in the API.
  await jobNotice.getByRole("button", { name: "Mark read" }).click();
  await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(1);
  await expect.poll(() => inboxLink.textContent(), { timeout: 10_000 }).toBe("Notifications1, 1 unread");
  expect(await unreadCount()).toBe(1);
  await shoot("03-notifications-unread-only");

  // The read view offers to mark it unread again, which the API records.
  await page.getByText("Read", { exact: true }).click();
  await jobNotice.getByRole("button", { name: "Mark unread" }).click();
  await expect.poll(unreadCount, { timeout: 10_000 }).toBe(2);
  await page.getByText("All", { exact: true }).click();
  await page.getByRole("button", { name: "Mark all read" }).click();
  await expect.poll(unreadCount, { timeout: 10_000 }).toBe(0);
  await expect.poll(() => inboxLink.textContent(), { timeout: 10_000 }).toBe("Notifications");
  await expect.poll(() => page.getByRole("button", { name: "Mark unread" }).count(), { timeout: 10_000 }).toBe(2);
  await shoot("04-notifications-all-read");

  // Deleting one takes it off the page and out of the API's list.
  await jobNotice.getByRole("button", { name: "Delete" }).click();
  await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(1);
  expect((await http.get("/v1/notifications", as)).body.notifications).toMatchObject([{ title: "New feedback in Shop" }]);

  // The feedback notice links inside the dashboard, to the feedback alone (no project in the link).
  await feedbackNotice.getByRole("link", { name: "New feedback in Shop" }).click();
  await expect.poll(() => url().pathname).toBe(`/dashboard/feedback/${feedbackId}`);
  await page.getByText("The export button does nothing on my iPad.").waitFor();
  await page.getByRole("link", { name: "ada" }).waitFor();

  // A comment (Markdown) and a status change, seen on the page and in the API.
  await page.getByLabel("Add a comment").fill("Reproduced on **2.4.0**, fixing it.");
  await page.getByRole("button", { name: "Comment" }).click();
  await page.locator(".comment-body strong", { hasText: "2.4.0" }).waitFor();
  await page.getByLabel("Status").selectOption({ label: "In review" });
  await expect
    .poll(async () => (await http.get(`/v1/projects/${project.id}/feedback/${feedbackId}`, as)).body, { timeout: 10_000 })
    .toMatchObject({ status: "in_review", comments: [{ body: "Reproduced on **2.4.0**, fixing it." }] });
  await shoot("05-feedback-detail");

  // The inbox of the project: the feedback with its new status and one comment; the status filter is in the URL.
  await page.getByRole("link", { name: "← All feedback" }).click();
  const feedbackRow = page.getByRole("row", { name: /The export button does nothing/ });
  await feedbackRow.getByText("In review").waitFor();
  expect(await feedbackRow.locator("td[data-label=Comments]").textContent()).toBe("1");
  await shoot("06-feedback-inbox");
  await page.getByText("Addressed", { exact: true }).click();
  await expect.poll(() => url().searchParams.get("status")).toBe("addressed");
  await page.getByText("No feedback matches these filters.").waitFor();

  // Users: both, most recently seen first; the search narrows them and is kept in the URL.
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Users" }).click();
  const userRows = page.getByRole("main").locator("tbody tr");
  await expect.poll(() => userRows.count(), { timeout: 10_000 }).toBe(2);
  await shoot("07-users");
  await page.getByLabel("User id contains").fill("ad");
  await page.getByRole("button", { name: "Search" }).click();
  await expect.poll(() => url().searchParams.get("search")).toBe("ad");
  await expect.poll(() => userRows.count(), { timeout: 10_000 }).toBe(1);
  await page.getByText("Anonymous", { exact: true }).click();
  await page.getByText("No users match these filters.").waitFor();
  expect(url().searchParams.get("kind")).toBe("anonymous");
  await page.goBack();
  await expect.poll(() => userRows.count(), { timeout: 10_000 }).toBe(1);

  // A user's page: properties, apps and recent events.
  await page.getByRole("link", { name: "ada" }).click();
  await expect.poll(() => url().pathname).toBe("/dashboard/users/ada");
  await page.getByRole("heading", { name: "ada", level: 1 }).waitFor();
  await page.getByRole("row", { name: /plan.*pro/ }).waitFor();
  await page.getByRole("row", { name: /referrer.*newsletter/ }).waitFor();
  await page.getByRole("region", { name: "Apps" }).getByText("iOS app").waitFor();
  const recent = page.getByRole("region", { name: "Recent events" });
  await recent.getByText("Payment declined").waitFor();
  await recent.getByText("checkout_opened").waitFor();
  expect(await recent.getByText("screen_view").count()).toBe(0);
  await shoot("08-user-detail", true);

  // Jobs: the finished scan with its result; the filters are in the URL.
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Jobs" }).click();
  const runRow = page.getByRole("row", { name: /Issue scan/ });
  await runRow.getByText("Completed").waitFor();
  await runRow.getByText("You").waitFor();
  expect(await runRow.getByRole("button", { name: /Cancel/ }).count()).toBe(0);
  await shoot("09-jobs");
  await page.getByLabel("Status").selectOption({ label: "Failed" });
  await expect.poll(() => url().searchParams.get("status")).toBe("failed");
  await page.getByText("No runs match these filters.").waitFor();

  // A backfill that stalls on the provider: it shows as running, and cancelling asks first.
  const integration = await http.post(`/v1/projects/${project.id}/integrations`, { provider: "subprov", config: { api_key: PROVIDER_KEY, project_id: PROVIDER_PROJECT } }, as);
  expect(integration.status).toBe(201);
  provider.script(`/v2/projects/${PROVIDER_PROJECT}/customers`, { status: 200, body: { object: "list", items: [], next_page: null }, delayMs: STALL_MS });
  const backfill = await http.post(`/v1/teams/${teamId}/jobs/trigger`, { job_type: "subprov_user_backfill", project_id: project.id }, as);
  expect(backfill.status).toBe(201);
  const backfillId: string = backfill.body.job_run.id;
  await page.getByLabel("Status").selectOption({ label: "Any status" });
  const backfillRow = page.getByRole("row", { name: /Subscriber backfill/ });
  await backfillRow.getByText("Running").waitFor();
  await backfillRow.getByRole("button", { name: "Cancel the Subscriber backfill run" }).click();
  const confirm = backfillRow.getByRole("group", { name: "Cancel the Subscriber backfill run?" });
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Keep it running");
  await shoot("10-jobs-cancel-confirmation");
  await confirm.getByRole("button", { name: "Keep it running" }).click();
  expect((await http.get(`/v1/jobs/${backfillId}`, as)).body.job_run.status).toBe("running");
  await backfillRow.getByRole("button", { name: "Cancel the Subscriber backfill run" }).click();
  await confirm.getByRole("button", { name: "Yes, cancel it" }).click();
  await backfillRow.getByText("Cancelled").waitFor();
  expect(await backfillRow.getByRole("button", { name: /Cancel/ }).count()).toBe(0);
  expect((await http.get(`/v1/jobs/${backfillId}`, as)).body.job_run.status).toBe("cancelled");
  await shoot("11-jobs-cancelled");

  // A phone: the sections fold behind a menu button that opens, closes on Escape and on navigation.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${baseUrl}/dashboard/users/ada?project=${project.id}`);
  await page.getByRole("row", { name: /plan.*pro/ }).waitFor();
  const menu = page.getByRole("button", { name: "Menu" });
  expect(await menu.getAttribute("aria-expanded")).toBe("false");
  expect(await page.getByRole("navigation", { name: "Sections" }).isVisible()).toBe(false);
  // Nothing wider than the screen: the page never scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shoot("12-phone-user-detail", true);
  expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(false);
  await menu.click();
  expect(await menu.getAttribute("aria-expanded")).toBe("true");
  // Open, the menu holds the sections and the account.
  expect(await page.getByLabel("Team").isVisible()).toBe(true);
  expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
  await shoot("13-phone-menu-open");
  await page.keyboard.press("Escape");
  await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Menu");
  await menu.click();
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Feedback" }).click();
  await expect.poll(() => url().pathname).toBe("/dashboard/feedback");
  // The menu closes in the render after the navigation, which the address may come before.
  await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false");
  await page.getByRole("row", { name: /The export button does nothing/ }).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shoot("14-phone-feedback-inbox", true);
  await page.goto(`${baseUrl}/dashboard/jobs`);
  await page.getByRole("row", { name: /Issue scan/ }).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shoot("15-phone-jobs", true);
});
