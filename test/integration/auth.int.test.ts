import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anError, type Client } from "../support/http.ts";
import { latestCode, outboxMessages } from "../support/outbox.ts";
import { startWithClient, stopTestService, type TestService } from "../support/service.ts";
import { requestCode, signIn, uniqueEmail } from "../support/users.ts";

let service: TestService;
let http: Client;

beforeAll(async () => {
  ({ service, http } = await startWithClient());
});
afterAll(async () => stopTestService(service));

describe("send-code and verify-code", () => {
  it("creates the account, default team and owner membership on first sign-in (201), then answers 200", async () => {
    const email = uniqueEmail("first");
    expect((await http.post("/v1/auth/send-code", { email })).body).toEqual({ message: expect.any(String) });
    const code = await latestCode(service.outbox, email);
    const first = await http.post("/v1/auth/verify-code", { email, code });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      token: expect.any(String),
      user: { id: expect.any(String), email, name: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String) },
      teams: [{ id: expect.any(String), name: expect.any(String), slug: expect.stringMatching(/^[a-z0-9-]+$/), role: "owner" }],
      is_new_user: true,
    });
    expect(first.body.teams[0].default_agent_key).toBeUndefined();
    const cookie = first.headers.getSetCookie().find((value) => value.startsWith("token="));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("Max-Age=315360000");

    const second = await http.post("/v1/auth/verify-code", { email, code: await requestCode(http, service.outbox, email) });
    expect(second.status).toBe(200);
    expect(second.body.is_new_user).toBe(false);
    expect(second.body.user.id).toBe(first.body.user.id);
  });

  it("accepts a code once", async () => {
    const email = uniqueEmail("once");
    const code = await requestCode(http, service.outbox, email);
    expect((await http.post("/v1/auth/verify-code", { email, code })).status).toBe(201);
    const again = await http.post("/v1/auth/verify-code", { email, code });
    expect(again.status).toBe(401);
    expect(again.body).toEqual(anError);
  });

  it("rejects a wrong code with 401 and malformed input with 400", async () => {
    const email = uniqueEmail("wrong");
    const code = await requestCode(http, service.outbox, email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    expect((await http.post("/v1/auth/verify-code", { email, code: wrong })).status).toBe(401);
    expect((await http.post("/v1/auth/verify-code", { email, code: "12ab56" })).status).toBe(400);
    expect((await http.post("/v1/auth/send-code", { email: "not-an-email" })).status).toBe(400);
    expect((await http.post("/v1/auth/send-code", {})).status).toBe(400);
  });

  it("sends at most 5 codes per email per hour", async () => {
    const email = uniqueEmail("limit");
    for (let i = 0; i < 5; i += 1) expect((await http.post("/v1/auth/send-code", { email })).status).toBe(200);
    const limited = await http.post("/v1/auth/send-code", { email });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await outboxMessages(service.outbox)).filter((mail) => mail.to === email)).toHaveLength(5);
  });

  it("creates one account when two verifications of a new email race", async () => {
    const email = uniqueEmail("race");
    const first = await requestCode(http, service.outbox, email);
    const second = await requestCode(http, service.outbox, email);
    const [a, b] = await Promise.all([
      http.post("/v1/auth/verify-code", { email, code: first }),
      http.post("/v1/auth/verify-code", { email, code: second }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.user.id).toBe(b.body.user.id);
  });
});

describe("session routes", () => {
  it("whoami, teams, me and PATCH me work with the JWT as bearer and as cookie", async () => {
    const user = await signIn(http, service.outbox);
    const whoami = await http.get("/v1/auth/whoami", { token: user.token });
    expect(whoami.body).toEqual({ type: "user", email: user.email, teams: [expect.objectContaining({ id: user.teamId, role: "owner" })] });
    const viaCookie = await http.get("/v1/auth/teams", { headers: { cookie: `token=${user.token}` } });
    expect(viaCookie.body.teams).toHaveLength(1);
    const renamed = await http.patch("/v1/auth/me", { name: "Ada" }, { token: user.token });
    expect(renamed.body.user.name).toBe("Ada");
    expect((await http.get("/v1/auth/me", { token: user.token })).body.user.name).toBe("Ada");
    expect((await http.patch("/v1/auth/me", { name: "" }, { token: user.token })).status).toBe(400);
  });

  it("answers 401 without or with bad credentials", async () => {
    expect((await http.get("/v1/auth/whoami")).status).toBe(401);
    expect((await http.get("/v1/auth/me", { token: "not.a.jwt" })).status).toBe(401);
    expect((await http.get("/v1/auth/whoami", { token: "svc_agent_nope" })).status).toBe(401);
  });

  it("logout clears the cookie", async () => {
    const out = await http.post("/v1/auth/logout");
    expect(out.body).toEqual({ success: true });
    expect(out.headers.getSetCookie().find((value) => value.startsWith("token="))).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
  });
});

describe("agent keys", () => {
  it("default-agent-key creates once (201) then returns the same key (200); verify-code then lists it", async () => {
    const user = await signIn(http, service.outbox);
    const created = await http.post("/v1/auth/default-agent-key", { team_id: user.teamId }, { token: user.token });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ secret: expect.stringMatching(/^svc_agent_/), created: true });
    const again = await http.post("/v1/auth/default-agent-key", { team_id: user.teamId }, { token: user.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ secret: created.body.secret, created: false });

    const whoami = await http.get("/v1/auth/whoami", { token: created.body.secret });
    expect(whoami.body).toMatchObject({ type: "api_key", key_type: "agent", team: { id: user.teamId } });
    expect(whoami.body.permissions).toContain("projects:write");
    expect((await http.get("/v1/auth/me", { token: created.body.secret })).status).toBe(403);

    const relogin = await signIn(http, service.outbox, user.email);
    expect(relogin.body.teams[0].default_agent_key).toBe(created.body.secret);
  });

  it("agent-login returns a key for a single-team user and asks for team_id when there are several", async () => {
    const user = await signIn(http, service.outbox);
    let code = await requestCode(http, service.outbox, user.email);
    const single = await http.post("/v1/auth/agent-login", { email: user.email, code });
    expect(single.status).toBe(201);
    expect(single.body).toEqual({ api_key: expect.stringMatching(/^svc_agent_/), team: { id: user.teamId, name: expect.any(String), slug: expect.any(String) } });
    expect(single.headers.getSetCookie()).toHaveLength(0);

    const second = await http.post("/v1/teams", { name: "Second", slug: `second-${user.userId.slice(0, 8)}` }, { token: user.token });
    expect(second.status).toBe(201);
    code = await requestCode(http, service.outbox, user.email);
    const ambiguous = await http.post("/v1/auth/agent-login", { email: user.email, code });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body).toEqual({ error: expect.any(String), teams: expect.arrayContaining([expect.objectContaining({ id: second.body.id, role: "owner" })]) });
    const chosen = await http.post("/v1/auth/agent-login", { email: user.email, code, team_id: second.body.id });
    expect(chosen.status).toBe(201);
    expect(chosen.body.team.id).toBe(second.body.id);
  });
});
