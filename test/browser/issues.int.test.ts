import { readFile } from "node:fs/promises";
import { afterAll, expect, it } from "vitest";
import { aFile, reserveAndUpload } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import { signedInDashboard, type DashboardRun } from "../support/dashboard.ts";
import { anEvent, ingest } from "../support/events.ts";
import { waitUntil } from "../support/processes.ts";

/**
 * The issues board and an issue's detail in a real browser against the built service: errors sent
 * over HTTP become issues on the board, one is commented on (Markdown, with an injection attempt
 * that must stay text), refused a stale move, resolved at a version through the prompt, and seen
 * in the resolved column; two issues are merged; a mail link without a project finds its issue.
 * Screenshots go to test-results/issues/.
 */

let run: DashboardRun | undefined;

afterAll(async () => {
  await run?.close();
});

/** Twenty distinct error messages (numbers would be normalized into one fingerprint, words are not). */
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"];

it("shows errors as issues on the board, comments, resolves at a version and merges", { timeout: 180_000 }, async () => {
  run = await signedInDashboard("issues");
  const { page, http, token, teamId, baseUrl, shoot } = run;
  const as = { token };
  const url = () => new URL(page.url());

  // A team without projects: the board says what to do.
  await page.goto(`${baseUrl}/dashboard/issues`);
  await page.getByText("has no projects yet").waitFor();
  await shoot("01-no-projects");

  const shop = await projectWithApp(http, token, teamId, { name: "Shop iOS" }, { name: "Shop" });
  const office = await projectWithApp(http, token, teamId, { name: "Back office" }, { name: "Office" });

  // A project without errors: every column is there, empty.
  await page.goto(`${baseUrl}/dashboard/issues?project_id=${shop.project.id}`);
  await page.getByText("No new issues.").waitFor();
  await expect.poll(() => page.locator("[data-status=new] .count").textContent()).toBe("0");
  await shoot("02-board-empty-project");

  // Errors: one twice (two sessions) from version 1.4.0, another, twenty more (a second page of
  // the new column), a development build's, and one in the other project. The board lists the
  // last seen first; the twenty are a minute older, so the two the steps below open are on the
  // first page whatever order the issues' ids give the ones seen at the same time.
  const aMinuteAgo = new Date(Date.now() - 60_000).toISOString();
  const shopErrors = [
    anEvent({ level: "error", message: "Payment declined: card expired", user_id: "ada", app_version: "1.4.0", sdk_name: "swift", sdk_version: "2.1.0" }),
    anEvent({ level: "error", message: "Payment declined: card expired", user_id: "grace", app_version: "1.4.0", sdk_name: "swift", sdk_version: "2.1.0" }),
    anEvent({ level: "error", message: "Checkout timed out", user_id: "grace", app_version: "1.4.0" }),
    ...WORDS.map((word) => anEvent({ level: "error", message: `Renderer ${word} crashed`, user_id: "linus", timestamp: aMinuteAgo })),
    anEvent({ level: "error", message: "Debug assertion failed", is_dev: true }),
  ];
  expect((await ingest(http, shop.clientKey, { bundle_id: shop.app.bundle_id, events: shopErrors })).body).toMatchObject({ accepted: shopErrors.length });
  expect((await ingest(http, office.clientKey, { bundle_id: office.app.bundle_id, events: [anEvent({ level: "error", message: "Report export failed" })] })).body).toMatchObject({ accepted: 1 });
  await waitUntil(
    "the errors to be issues",
    async () => {
      const [production, development, all] = await Promise.all([
        http.get(`/v1/issues/count?project_id=${shop.project.id}`, as),
        http.get(`/v1/issues/count?project_id=${shop.project.id}&data_mode=development`, as),
        http.get(`/v1/issues/count?team_id=${teamId}`, as),
      ]);
      return production.body.new === 22 && development.body.new === 1 && all.body.new === 23;
    },
    30_000,
    250,
  );

  // A log file sent with the first occurrence's event.
  const log = aFile(2048);
  await reserveAndUpload(http, shop.clientKey, log, { client_event_id: shopErrors[0]!.client_event_id, original_filename: "crash.log", content_type: "text/plain" });

  // The board of the mailed project: the error is an issue in the new column, 20 to a page.
  await page.reload();
  const newColumn = page.getByRole("region", { name: /^New/ });
  await newColumn.getByRole("link", { name: "Payment declined: card expired" }).waitFor();
  await expect.poll(() => page.locator("[data-status=new] .count").textContent()).toBe("22");
  expect(await newColumn.getByRole("listitem").count()).toBe(20);
  await shoot("03-board-project");
  await newColumn.getByRole("button", { name: "More new" }).click();
  await expect.poll(() => newColumn.getByRole("listitem").count()).toBe(22);
  expect(await newColumn.getByRole("button", { name: "More new" }).count()).toBe(0);

  // Development builds' issues are apart; the mode is in the URL.
  await page.getByText("Development", { exact: true }).click();
  await expect.poll(() => url().searchParams.get("mode")).toBe("development");
  await newColumn.getByRole("link", { name: "Debug assertion failed" }).waitFor();
  expect(await newColumn.getByRole("listitem").count()).toBe(1);
  await shoot("04-board-development");
  await page.getByText("Production", { exact: true }).click();
  await newColumn.getByRole("link", { name: "Payment declined: card expired" }).waitFor();

  // All the team's projects: the other project's issue, named with its project.
  await page.getByLabel("Project").selectOption({ label: "All projects" });
  await newColumn.getByRole("link", { name: "Report export failed" }).waitFor();
  expect(url().searchParams.has("project_id")).toBe(false);
  expect(await newColumn.getByRole("listitem").filter({ hasText: "Report export failed" }).textContent()).toContain("Office · Back office");
  await expect.poll(() => page.locator("[data-status=new] .count").textContent()).toBe("23");
  await shoot("05-board-all-projects", true);

  // The app filter narrows to one app (here: the other project's only issue).
  await page.getByLabel("App").selectOption({ label: "Back office (Office)" });
  await expect.poll(() => newColumn.getByRole("listitem").count()).toBe(1);
  expect(url().searchParams.get("app")).toBe(office.app.id);
  await page.getByLabel("App").selectOption({ label: "All apps" });
  await page.getByLabel("Project").selectOption({ label: "Shop" });

  // The detail: fields, occurrences, fingerprint.
  await newColumn.getByRole("link", { name: "Payment declined: card expired" }).click();
  await page.getByRole("heading", { level: 1, name: "Payment declined: card expired" }).waitFor();
  const payment = (await http.get(`/v1/issues?project_id=${shop.project.id}&status=new&limit=50`, as)).body.issues.find((issue: { title: string }) => issue.title.startsWith("Payment"));
  expect(url().pathname).toBe(`/dashboard/issues/${payment.id}`);
  expect(url().searchParams.get("project")).toBe(shop.project.id);
  const occurrences = page.getByRole("region", { name: "Occurrences table" });
  await expect.poll(() => occurrences.locator("tbody tr").count()).toBe(2);
  expect(await occurrences.textContent()).toContain("swift 2.1.0");
  await page.getByText(payment.fingerprints[0]).waitFor();
  expect(await page.locator(".moves h2").textContent()).toContain("New");
  await page.getByRole("region", { name: /^Attachments/ }).getByText("crash.log").waitFor();
  await shoot("06-detail", true);

  // The attachment downloads through a signed link asked for on click.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download crash.log" }).click()]);
  expect(download.suggestedFilename()).toBe("crash.log");
  expect((await readFile(await download.path())).equals(log.bytes)).toBe(true);

  // A comment in Markdown, with a script and an onerror image that must stay text, and a javascript: link that must not be one.
  const markdown = [
    "Seen on **iOS 17** only, see [the runbook](https://example.com/runbook).",
    "",
    '<script>window.__injected = "script"</script> <img src=x onerror="window.__injected = \'img\'">',
    "",
    "[click me](javascript:window.__injected='link')",
  ].join("\n");
  await page.getByLabel("Add a comment").fill(markdown);
  await page.getByRole("button", { name: "Post comment" }).click();
  const comment = page.locator(".comment").first();
  await comment.getByText("iOS 17").waitFor();
  expect(await comment.locator("strong", { hasText: "iOS 17" }).count()).toBe(1);
  expect(await comment.textContent()).toContain("<script>window.__injected");
  expect(await comment.textContent()).toContain("<img src=x onerror=");
  expect(await comment.locator(".markdown script, .markdown img").count()).toBe(0);
  const runbook = comment.getByRole("link", { name: "the runbook" });
  expect(await runbook.getAttribute("href")).toBe("https://example.com/runbook");
  expect(await runbook.getAttribute("rel")).toContain("noopener");
  await comment.getByText("click me").waitFor();
  expect(await comment.getByRole("link", { name: "click me" }).count()).toBe(0);
  await comment.getByText("click me").click();
  expect(await page.evaluate(() => (window as unknown as { __injected?: string }).__injected)).toBeUndefined();
  const posted = await http.get(`/v1/projects/${shop.project.id}/issues/${payment.id}/comments`, as);
  expect(posted.body.comments.map((entry: { body: string }) => entry.body)).toEqual([markdown]);
  await shoot("07-comment-markdown");

  // Editing and deleting one's own comments.
  await comment.getByRole("button", { name: "Edit" }).click();
  await page.getByLabel("Edit comment").fill("Seen on **iOS 17** and 18.");
  await page.getByRole("button", { name: "Save" }).click();
  await comment.locator(".markdown", { hasText: "and 18." }).waitFor();
  expect(await comment.textContent()).toContain("edited");
  await page.getByLabel("Add a comment").fill("A note to take back");
  await page.getByRole("button", { name: "Post comment" }).click();
  const note = page.locator(".comment", { hasText: "A note to take back" });
  await note.getByRole("button", { name: "Delete" }).click();
  await shoot("08-comment-delete-confirm");
  await note.getByRole("button", { name: "Delete comment" }).click();
  await expect.poll(() => page.locator(".comment").count()).toBe(1);
  const kept = await http.get(`/v1/projects/${shop.project.id}/issues/${payment.id}/comments`, as);
  expect(kept.body.comments.map((entry: { body: string }) => entry.body)).toEqual(["Seen on **iOS 17** and 18."]);

  // A move made elsewhere meanwhile (in progress): the page's stale "Start work" is refused with the API's reason.
  expect((await http.patch(`/v1/projects/${shop.project.id}/issues/${payment.id}`, { status: "in_progress" }, as)).status).toBe(200);
  await page.getByRole("button", { name: "Start work" }).click();
  await page.getByRole("alert").filter({ hasText: "The move was refused" }).waitFor();
  await expect.poll(() => page.locator(".moves h2").textContent()).toContain("In progress");
  await shoot("09-move-refused");

  // Resolving asks for the version first; an empty one is not sent.
  await page.getByRole("button", { name: "Resolve…" }).click();
  const version = page.getByLabel("Resolved in version");
  await version.waitFor();
  await page.getByRole("button", { name: "Resolve", exact: true }).click();
  expect(await version.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true);
  await version.fill("1.4.1");
  await shoot("10-resolve-prompt");
  await page.getByRole("button", { name: "Resolve", exact: true }).click();
  await expect.poll(() => page.locator(".moves h2").textContent()).toContain("Resolved in version 1.4.1");
  const resolved = await http.get(`/v1/projects/${shop.project.id}/issues/${payment.id}`, as);
  expect(resolved.body).toMatchObject({ status: "resolved", resolved_at_version: "1.4.1" });
  expect(await page.getByRole("button", { name: "Reopen as new" }).count()).toBe(1);
  await shoot("11-resolved", true);

  // Back on the board, it is in the resolved column.
  await page.getByRole("link", { name: "← Issues" }).click();
  const resolvedColumn = page.getByRole("region", { name: /^Resolved/ });
  await resolvedColumn.getByRole("link", { name: "Payment declined: card expired" }).waitFor();
  await expect.poll(() => page.locator("[data-status=resolved] .count").textContent()).toBe("1");
  await expect.poll(() => newColumn.getByRole("link", { name: "Payment declined: card expired" }).count()).toBe(0);
  await shoot("12-board-resolved");

  // Merge: "Renderer alpha crashed" into "Checkout timed out", found by title and confirmed.
  await newColumn.getByRole("link", { name: "Checkout timed out" }).click();
  await page.getByRole("heading", { level: 1, name: "Checkout timed out" }).waitFor();
  const target = url().pathname.split("/").pop()!;
  await page.getByLabel("Find by title").fill("renderer alpha");
  const source = page.getByLabel("Issue to merge in");
  await expect.poll(() => source.locator("option").count()).toBe(2);
  await source.selectOption({ index: 1 });
  const sourceId = await source.inputValue();
  await page.getByRole("button", { name: "Merge…" }).click();
  await page.getByRole("group", { name: "Confirm merge" }).getByText("Merge “Renderer alpha crashed” into this issue?").waitFor();
  await shoot("13-merge-confirm", true);
  await page.getByRole("button", { name: "Merge issues" }).click();
  await page.getByRole("status").filter({ hasText: "Merged “Renderer alpha crashed” into this issue." }).waitFor();
  await expect.poll(() => occurrences.locator("tbody tr").count()).toBe(2);
  expect(await page.getByRole("region", { name: /^Fingerprints/ }).locator("li").count()).toBe(2);
  expect((await http.get(`/v1/projects/${shop.project.id}/issues/${sourceId}`, as)).status).toBe(404);
  expect((await http.get(`/v1/projects/${shop.project.id}/issues/${target}`, as)).body).toMatchObject({ occurrence_count: 2 });
  await shoot("14-merged", true);

  // A mail link without the project: the issue is found among the team's projects, and the URL gets it.
  await page.goto(`${baseUrl}/dashboard/issues/${target}`);
  await page.getByRole("heading", { level: 1, name: "Checkout timed out" }).waitFor();
  expect(url().searchParams.get("project")).toBe(shop.project.id);
  // The merged-away source is gone, said plainly.
  await page.goto(`${baseUrl}/dashboard/issues/${sourceId}`);
  await page.getByRole("heading", { level: 1, name: "Issue not found" }).waitFor();
  await shoot("15-issue-not-found");

  // The overview's link to a status: that column is marked.
  await page.goto(`${baseUrl}/dashboard/issues?project=${shop.project.id}&status=resolved`);
  await resolvedColumn.getByRole("link", { name: "Payment declined: card expired" }).waitFor();
  expect(await resolvedColumn.getAttribute("class")).toContain("focused");

  // A failed count is said in place, with a retry; the columns still show.
  await page.route("**/v1/issues/count?*", (route) => route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: "the database is away" }) }));
  await page.reload();
  await page.getByRole("alert").filter({ hasText: "Could not load this: the database is away" }).waitFor();
  await resolvedColumn.getByRole("link", { name: "Payment declined: card expired" }).waitFor();
  await shoot("16-board-count-failed");
  await page.unroute("**/v1/issues/count?*");
  await page.getByRole("button", { name: "Try again" }).click();
  await expect.poll(() => page.locator("[data-status=resolved] .count").textContent()).toBe("1");
  expect(await page.getByRole("alert").count()).toBe(0);

  // A phone: one column, nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${baseUrl}/dashboard/issues?project=${shop.project.id}`);
  await newColumn.getByRole("link", { name: "Checkout timed out" }).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shoot("17-board-phone", true);
  // The status links jump past the long new column (the page's end may stop the heading short of the top).
  const headingTop = () => page.locator("#column-in_progress").evaluate((heading) => heading.getBoundingClientRect().top);
  expect(await headingTop()).toBeGreaterThan(844);
  await page.getByRole("navigation", { name: "Statuses" }).getByRole("link", { name: "In progress 0" }).click();
  expect(url().hash).toBe("#column-in_progress");
  await expect.poll(headingTop).toBeLessThan(800);
  expect(await headingTop()).toBeGreaterThanOrEqual(0);
  await page.goto(`${baseUrl}/dashboard/issues/${payment.id}?project=${shop.project.id}`);
  await page.getByRole("heading", { level: 1, name: "Payment declined: card expired" }).waitFor();
  await page.locator(".comment").first().waitFor();
  expect(await occurrences.locator("td[data-label='App version']").first().evaluate((cell) => getComputedStyle(cell, "::before").content)).toBe('"App version"');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shoot("18-detail-phone", true);
});
