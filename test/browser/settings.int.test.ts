import { afterAll, expect, it } from "vitest";
import { signedInDashboard, type DashboardRun } from "../support/dashboard.ts";
import { joinTeam } from "../support/membership.ts";

/**
 * The settings pages in a real browser, driven as a person would: create a project and an app,
 * create and revoke a client key and an API key, change a project's retention, invite someone,
 * connect and pause an integration, delete a project, and find each of those in the audit log.
 * Every step is checked against the API too, and every tab photographed into test-results/settings/.
 */

let run: DashboardRun | undefined;
afterAll(() => run?.close());

it("manages projects, apps, keys, the team and integrations, and shows the audit log", { timeout: 180_000 }, async () => {
  run = await signedInDashboard("settings");
  const { page, http, token, teamId, baseUrl, shoot, email } = run;
  const asUser = { token };
  const keysOfTeam = async () => (await http.get(`/v1/auth/keys?team_id=${teamId}`, asUser)).body.api_keys as { id: string; name: string; key_type: string; permissions: string[]; expires_at: string | null }[];

  // /dashboard/settings opens the first tab; a new team has no projects.
  await page.goto(`${baseUrl}/dashboard/settings`);
  await page.getByText("has no projects yet").waitFor();
  expect(new URL(page.url()).pathname).toBe("/dashboard/settings/projects");
  await shoot("01-projects-empty");

  // A project by name; the slug follows the name; its editor opens next.
  await page.getByLabel("Name", { exact: true }).fill("Shop Front");
  expect(await page.getByLabel("Slug").inputValue()).toBe("shop-front");
  await page.getByRole("button", { name: "Create project" }).click();
  await page.getByRole("heading", { name: "Shop Front" }).waitFor();
  const projectId = new URL(page.url()).pathname.split("/").pop()!;
  const created = await http.get(`/v1/projects/${projectId}`, asUser);
  expect(created.body).toMatchObject({ name: "Shop Front", slug: "shop-front", retention_days_events: null, effective_retention_days_events: 120 });

  // Retention and alert frequency, saved as a PATCH of just what changed.
  await page.getByLabel("Events", { exact: true }).fill("30");
  await page.getByLabel("Issue alerts").selectOption("hourly");
  await shoot("02-project-editor");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByText("Saved.").waitFor();
  await page.getByText("Now kept: events 30 days").waitFor();
  const edited = await http.get(`/v1/projects/${projectId}`, asUser);
  expect(edited.body).toMatchObject({ retention_days_events: 30, effective_retention_days_events: 30, retention_days_metrics: null, issue_alert_frequency: "hourly" });

  // A project made over HTTP is deleted here, after the confirmation.
  const doomed = await http.post("/v1/projects", { team_id: teamId, name: "Old Shop", slug: "old-shop" }, asUser);
  expect(doomed.status).toBe(201);
  await page.getByRole("link", { name: "← All projects" }).click();
  await page.getByRole("link", { name: "Old Shop" }).click();
  await page.getByRole("button", { name: "Delete project" }).click();
  await page.getByText("Delete Old Shop and everything in it?").waitFor();
  await shoot("03-project-delete-confirm");
  await page.getByRole("button", { name: "Yes, delete it" }).click();
  await page.getByRole("link", { name: "Shop Front" }).waitFor();
  expect(await page.getByRole("link", { name: "Old Shop" }).count()).toBe(0);
  expect((await http.get(`/v1/projects/${doomed.body.id}`, asUser)).status).toBe(404);
  await shoot("04-projects");

  // A project that is not there (deleted, or a mistyped link) says so, with a way to ask again.
  await page.goto(`${baseUrl}/dashboard/settings/projects/${doomed.body.id}`);
  await page.getByRole("alert").getByText("Could not load this").waitFor();
  await page.getByRole("button", { name: "Try again" }).waitFor();
  await shoot("04a-project-not-found");
  await page.getByRole("link", { name: "← All projects" }).click();

  // Apps: an iOS app; its client key is shown once with the answer.
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Apps" }).click();
  await page.getByText("No apps in this project yet").waitFor();
  await shoot("05-apps-empty");
  await page.getByLabel("Name", { exact: true }).fill("Shop iOS");
  await page.getByLabel("Platform").selectOption("apple");
  await page.getByLabel("Bundle id").fill("com.example.shop");
  await page.getByRole("button", { name: "Create app" }).click();
  const appSecret = await page.getByLabel("Client key of Shop iOS").inputValue();
  expect(appSecret).toMatch(/^svc_client_/);
  await page.getByRole("heading", { name: "Shop iOS" }).waitFor();
  const apps = (await http.get(`/v1/projects/${projectId}`, asUser)).body.apps;
  expect(apps).toMatchObject([{ name: "Shop iOS", platform: "apple", bundle_id: "com.example.shop", client_secret: appSecret }]);
  await shoot("06-app-created-key-shown");
  await page.getByRole("button", { name: "Done" }).click();

  // Renaming changes the name only; the bundle id stays.
  await page.getByRole("button", { name: "Rename Shop iOS" }).click();
  await page.getByLabel("New name of Shop iOS").fill("Shop for iPhone");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("heading", { name: "Shop for iPhone" }).waitFor();
  expect((await http.get(`/v1/apps/${apps[0].id}`, asUser)).body).toMatchObject({ name: "Shop for iPhone", bundle_id: "com.example.shop" });
  await page.getByRole("button", { name: "Rename Shop for iPhone" }).click();
  await page.getByLabel("New name of Shop for iPhone").fill("Shop iOS");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("heading", { name: "Shop iOS" }).waitFor();

  // A second client key: created, shown once, then revoked.
  await page.getByLabel("Name of a new client key for Shop iOS").fill("Release 2");
  await page.getByRole("button", { name: "Create client key for Shop iOS" }).click();
  const clientSecret = await page.getByLabel("New client key Release 2").inputValue();
  expect(clientSecret).toMatch(/^svc_client_/);
  const release2 = (await keysOfTeam()).find((key) => key.name === "Release 2");
  expect(release2).toMatchObject({ key_type: "client" });
  await page.locator("li[data-key='Release 2']").waitFor();
  // The list shows the secret's tail only, never the whole secret.
  expect(await page.locator("li[data-key='Release 2'] code.secret").textContent()).toBe(`svc_client_…${clientSecret.slice(-4)}`);
  await shoot("07-client-key-created");
  await page.getByRole("button", { name: "Revoke key Release 2" }).click();
  await page.getByRole("button", { name: "Yes, revoke" }).click();
  await page.locator("li[data-key='Release 2']").waitFor({ state: "detached" });
  expect((await keysOfTeam()).some((key) => key.id === release2!.id)).toBe(false);
  await page.getByRole("button", { name: "Done" }).click();
  await shoot("08-apps");

  // API keys: an agent key with fewer permissions and an expiry; its secret shown once; revoked.
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "API keys" }).click();
  await page.getByText("No agent or import keys yet").waitFor();
  await page.getByLabel("Name", { exact: true }).fill("CI");
  await page.getByLabel("audit_logs:read").uncheck();
  await page.getByLabel("jobs:write").uncheck();
  await page.getByLabel("Expires after (days)").fill("30");
  await page.getByRole("button", { name: "Create key" }).click();
  const agentSecret = await page.getByLabel("Secret of CI").inputValue();
  expect(agentSecret).toMatch(/^svc_agent_/);
  await page.getByRole("button", { name: /^Copy$|^Copied$/ }).click();
  await page.getByText(/^Copied$|The browser refused the clipboard/).first().waitFor();
  const ci = (await keysOfTeam()).find((key) => key.name === "CI");
  expect(ci).toMatchObject({ key_type: "agent" });
  expect(ci!.permissions).toContain("events:read");
  expect(ci!.permissions).not.toContain("audit_logs:read");
  expect(ci!.permissions).not.toContain("jobs:write");
  expect(Date.parse(ci!.expires_at!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  // The new key works as a credential with what it was given, and not beyond.
  expect((await http.get(`/v1/projects?team_id=${teamId}`, { token: agentSecret })).status).toBe(200);
  expect((await http.get(`/v1/teams/${teamId}/audit-logs`, { token: agentSecret })).status).toBe(403);
  await page.locator("li[data-key='CI']").waitFor();
  await shoot("09-api-key-created");
  await page.getByRole("button", { name: "Revoke key CI" }).click();
  await page.getByRole("button", { name: "Yes, revoke" }).click();
  await page.getByText("No agent or import keys yet").waitFor();
  expect((await keysOfTeam()).some((key) => key.name === "CI")).toBe(false);
  expect((await http.get(`/v1/projects?team_id=${teamId}`, { token: agentSecret })).status).toBe(401);

  // An import key belongs to one app and holds the import permissions.
  await page.getByText("Import (one app)").click();
  await page.getByLabel("Name", { exact: true }).fill("Backfill");
  await page.getByLabel("App", { exact: true }).selectOption({ label: "Shop iOS" });
  await page.getByRole("button", { name: "Create key" }).click();
  expect(await page.getByLabel("Secret of Backfill").inputValue()).toMatch(/^svc_import_/);
  await page.locator("li[data-key='Backfill']").getByText("app Shop iOS").waitFor();
  expect((await keysOfTeam()).find((key) => key.name === "Backfill")).toMatchObject({ key_type: "import", app_id: apps[0].id, permissions: ["events:write", "users:write"] });
  await shoot("09a-import-key-created");

  // Team: the signed-in owner, an invitation, and the API's refusal shown in its words.
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Team" }).click();
  await page.locator(`li[data-member='${email}']`).getByText("you").waitFor();
  expect(await page.getByLabel(`Role of ${email}`).isDisabled()).toBe(true);
  await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
  await page.getByLabel("Role", { exact: true }).selectOption("admin");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.locator("li[data-invitation='grace@example.com']").getByText("Admin").waitFor();
  const invitations = (await http.get(`/v1/teams/${teamId}/invitations`, asUser)).body.invitations;
  expect(invitations).toMatchObject([{ email: "grace@example.com", role: "admin" }]);
  // A member who joined by invitation is promoted here; inviting oneself is refused in the API's words.
  const me = (await http.get("/v1/auth/me", asUser)).body.user;
  const ada = await joinTeam(http, run.config.mailOutboxDir, { teamId, inviter: { token, userId: me.id, email, teamId, body: null }, role: "member" });
  const roleOf = async (userId: string) => ((await http.get(`/v1/teams/${teamId}/members`, asUser)).body.members as { user_id: string; role: string }[]).find((member) => member.user_id === userId)?.role;
  await page.reload();
  await page.getByLabel(`Role of ${ada.email}`).selectOption("admin");
  await expect.poll(() => roleOf(ada.userId)).toBe("admin");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.getByRole("alert").filter({ hasText: /member/i }).waitFor();
  await shoot("10-team");

  // Removing a member asks first, and can take their agent keys with them.
  await page.getByRole("button", { name: `Remove ${ada.email}` }).click();
  await page.getByLabel("Also revoke their agent keys").check();
  await shoot("10a-team-remove-confirm");
  await page.getByRole("button", { name: "Yes, remove" }).click();
  await page.locator(`li[data-member='${ada.email}']`).waitFor({ state: "detached" });
  expect(await roleOf(ada.userId)).toBeUndefined();

  // Integrations: connect with a secret typed into a password field, see the webhook setup, pause it, delete it.
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Integrations" }).click();
  await page.getByRole("heading", { name: "Subscription provider" }).waitFor();
  expect(await page.getByLabel("Secret API key").getAttribute("type")).toBe("password");
  await shoot("11-integrations-empty");
  await page.getByLabel("Secret API key").fill("sk_live_abcdef123456");
  await page.getByLabel("Provider project id").fill("proj1ab2c3d4");
  await page.getByRole("button", { name: "Connect" }).click();
  await page.getByText("Enabled", { exact: true }).waitFor();
  expect(await page.locator("[data-webhook=url]").textContent()).toContain(`/v1/webhooks/subprov/${projectId}`);
  expect(await page.locator("[data-webhook=authorization]").textContent()).not.toContain("Bearer ey");
  await page.getByText("sk_l****").waitFor();
  await shoot("12-integration-connected");
  await page.getByRole("button", { name: "Disable" }).click();
  await page.getByText("Disabled", { exact: true }).waitFor();
  expect((await http.get(`/v1/projects/${projectId}/integrations/subprov`, asUser)).body).toMatchObject({ enabled: false, config: { project_id: "proj1ab2c3d4" } });
  // Editing leaves the secret empty: the stored one stays.
  await page.getByRole("button", { name: "Edit config" }).click();
  expect(await page.getByLabel("Secret API key").inputValue()).toBe("");
  await page.getByLabel("Environment").fill("sandbox");
  await page.getByRole("button", { name: "Save config" }).click();
  await page.getByText("sandbox", { exact: true }).first().waitFor();
  expect((await http.get(`/v1/projects/${projectId}/integrations/subprov`, asUser)).body.config).toMatchObject({ api_key: "sk_l****", environment: "sandbox" });
  await page.getByRole("button", { name: "Delete the Subscription provider integration" }).click();
  await page.getByRole("button", { name: "Yes, delete", exact: true }).click();
  await page.getByRole("button", { name: "Connect" }).waitFor();
  expect((await http.get(`/v1/projects/${projectId}/integrations`, asUser)).body.integrations).toEqual([]);

  // The audit log has every one of those changes (it is a read model: reload until it caught up).
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }).click();
  const expected = ["create project", "update project", "delete project", "create app", "update app", "create api_key", "delete api_key", "create invitation", "create team_member", "update team_member", "delete team_member", "create integration", "update integration", "delete integration"];
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.locator("table.audit, .state.empty").first().waitFor();
        const rows = await page.locator("tr[data-audit]").evaluateAll((cells) => cells.map((cell) => cell.getAttribute("data-audit")));
        return expected.filter((entry) => !rows.includes(entry));
      },
      { timeout: 30_000, interval: 500 },
    )
    .toEqual([]);
  await page.locator("tr[data-audit='update project']", { hasText: "retention_days_events" }).getByText("30").first().waitFor();
  expect(await page.locator("tr[data-audit='create project']").first().getByText(email).count()).toBe(1);
  await shoot("13-audit-log", true);

  // Filters go to the URL and to the API.
  await page.getByLabel("Resource").selectOption("api_key");
  await page.getByLabel("Action").selectOption("delete");
  await expect.poll(() => new URL(page.url()).searchParams.get("action")).toBe("delete");
  expect(new URL(page.url()).searchParams.get("resource_type")).toBe("api_key");
  await expect.poll(async () => [...new Set(await page.locator("tr[data-audit]").evaluateAll((cells) => cells.map((cell) => cell.getAttribute("data-audit"))))]).toEqual(["delete api_key"]);
  expect(await page.locator("tr[data-audit]").count()).toBe(2);
  await shoot("14-audit-log-filtered");
  await page.getByRole("button", { name: "Clear filters" }).click();
  await page.locator("tr[data-audit='create app']").waitFor();
  // Two filters picked in one task, before the page renders the first: both reach the URL.
  await page.getByRole("form", { name: "Audit log filters" }).evaluate((form) => {
    const [resource, action] = [...form.querySelectorAll("select")];
    for (const [select, value] of [[resource!, "api_key"], [action!, "delete"]] as const) {
      select.value = value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  await expect.poll(() => new URL(page.url()).searchParams.get("action")).toBe("delete");
  expect(new URL(page.url()).searchParams.get("resource_type")).toBe("api_key");
  await page.getByRole("button", { name: "Clear filters" }).click();
  await page.locator("tr[data-audit='create app']").waitFor();

  // Cursor paging: a page holds 50 entries; with more, "Load older entries" brings the rest.
  for (let index = 0; index < 45; index += 1) {
    expect((await http.patch(`/v1/projects/${projectId}`, { retention_days_funnels: 100 + index }, asUser)).status).toBe(200);
  }
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.locator("tr[data-audit]").first().waitFor();
        return page.getByRole("button", { name: "Load older entries" }).count();
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBe(1);
  expect(await page.locator("tr[data-audit]").count()).toBe(50);
  await page.getByRole("button", { name: "Load older entries" }).click();
  await page.getByText("That is every entry").waitFor();
  expect(await page.locator("tr[data-audit]").count()).toBeGreaterThan(50);
  expect(await page.locator("tr[data-audit='create project']").count()).toBe(2);

  // A phone's width: one column, nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [tab, name] of [
    ["projects", "15-phone-projects"],
    [`apps?project=${projectId}`, "16-phone-apps"],
    ["api-keys", "17-phone-api-keys"],
    ["team", "18-phone-team"],
    ["integrations", "19-phone-integrations"],
    ["audit-log?resource_type=invitation", "20-phone-audit-log"],
  ] as const) {
    await page.goto(`${baseUrl}/dashboard/settings/${tab}`);
    await page.locator("main .card").first().waitFor();
    await page.locator(".state.loading").first().waitFor({ state: "detached" }).catch(() => undefined);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${tab} is wider than the screen`).toBeLessThanOrEqual(0);
    await shoot(name, true);
  }
});
