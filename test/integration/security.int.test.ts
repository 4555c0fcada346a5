import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { sharedSecret } from "../../streams/shared-secret.ts";
import { projectWithApp } from "../support/catalog.ts";
import { client, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { invitationToken } from "../support/outbox.ts";
import { waitUntil } from "../support/processes.ts";
import { startTestService, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { requestCode, signIn, uniqueEmail, type SignedIn } from "../support/users.ts";

/** Every line the service logged, as pino wrote it. */
const logLines: string[] = [];

let config: Config;
let service: TestService;
let http: Client;
let owner: SignedIn;

beforeAll(async () => {
  config = await testConfig();
  const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
  service = await startTestService(config, ["api", "projector", "worker"], logger);
  http = client(service.baseUrl);
  owner = await signIn(http, service.outbox);
});
afterAll(async () => stopTestService(service));

describe("API key secrets", () => {
  it("shows a member the full secret only of client keys and of keys they created", async () => {
    const { app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    const createKey = async (body: Record<string, unknown>) => {
      const created = await http.post("/v1/auth/keys", body, { token: owner.token });
      expect(created.status).toBe(201);
      return created.body.api_key as { id: string; secret: string };
    };
    const ownerAgent = await createKey({ name: "owner automation", key_type: "agent", team_id: owner.teamId });
    const importKey = await createKey({ name: "backfill", key_type: "import", app_id: app.id });
    const admin = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "admin" });
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const login = await http.post("/v1/auth/agent-login", {
      email: member.email,
      code: await requestCode(http, service.outbox, member.email),
      team_id: owner.teamId,
    });
    expect(login.status).toBe(201);
    const memberAgentSecret = login.body.api_key as string;

    const listedBy = async (reader: SignedIn) => {
      const listed = await http.get(`/v1/auth/keys?team_id=${owner.teamId}`, { token: reader.token });
      expect(listed.status).toBe(200);
      return listed.body.api_keys as { id: string; secret: string; key_type: string; app_id: string | null }[];
    };
    const memberView = await listedBy(member);
    const secretOf = (keys: { id: string; secret: string }[], id: string) => keys.find((key) => key.id === id)?.secret;
    expect(secretOf(memberView, ownerAgent.id)).toBe(`svc_agent_...${ownerAgent.secret.slice(-4)}`);
    expect(secretOf(memberView, importKey.id)).toBe(`svc_import_...${importKey.secret.slice(-4)}`);
    expect(memberView.find((key) => key.key_type === "client" && key.app_id === app.id)?.secret).toBe(clientKey);
    const memberAgent = memberView.find((key) => key.secret === memberAgentSecret);
    expect(memberAgent).toBeDefined();
    expect(JSON.stringify(memberView)).not.toContain(ownerAgent.secret);
    expect(JSON.stringify(memberView)).not.toContain(importKey.secret);

    // Reading one key follows the same rule.
    expect((await http.get(`/v1/auth/keys/${ownerAgent.id}`, { token: member.token })).body.api_key.secret).toBe(
      `svc_agent_...${ownerAgent.secret.slice(-4)}`,
    );
    expect((await http.get(`/v1/auth/keys/${memberAgent!.id}`, { token: member.token })).body.api_key.secret).toBe(memberAgentSecret);
    // What a member sees cannot be used as a credential.
    expect((await http.get("/v1/auth/whoami", { token: secretOf(memberView, ownerAgent.id) })).status).toBe(401);

    for (const reader of [admin, owner]) {
      const view = await listedBy(reader);
      expect(secretOf(view, ownerAgent.id)).toBe(ownerAgent.secret);
      expect(secretOf(view, importKey.id)).toBe(importKey.secret);
      expect(secretOf(view, memberAgent!.id)).toBe(memberAgentSecret);
      expect((await http.get(`/v1/auth/keys/${ownerAgent.id}`, { token: reader.token })).body.api_key.secret).toBe(ownerAgent.secret);
    }
  });
});

describe("session tokens", () => {
  it("refuses a session signed with the constant that used to ship in the repository", async () => {
    const forged = await new SignJWT({ email: owner.email })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(owner.userId)
      .setIssuedAt()
      .sign(new TextEncoder().encode("development-only-secret-change-me-in-production"));
    expect((await http.get("/v1/auth/me", { token: forged })).status).toBe(401);
    expect((await http.get("/v1/auth/me", { headers: { cookie: `token=${forged}` } })).status).toBe(401);
    expect((await http.get("/v1/auth/me", { token: owner.token })).status).toBe(200);
  });

  it("signs with one generated secret per namespace, so a second instance or a restart accepts the sessions", async () => {
    const second = await startTestService(config, ["api"]);
    try {
      const secondHttp = client(second.baseUrl);
      expect((await secondHttp.get("/v1/auth/me", { token: owner.token })).body.user.id).toBe(owner.userId);
      const viaSecond = await signIn(secondHttp, second.outbox);
      expect((await http.get("/v1/auth/me", { token: viaSecond.token })).body.user.id).toBe(viaSecond.userId);
    } finally {
      await second.close();
    }
  });

  it("creates the shared secret once, however many instances ask at the same time", async () => {
    const name = `race_${randomUUID().replaceAll("-", "")}`;
    const secrets = await Promise.all(Array.from({ length: 8 }, () => sharedSecret(service.log, name)));
    expect(new Set(secrets).size).toBe(1);
    // 48 random bytes in base64url.
    expect(secrets[0]).toMatch(/^[\w-]{64}$/);
    expect(await sharedSecret(service.log, name)).toBe(secrets[0]);
  });
});

describe("access log", () => {
  it("never writes a token carried in a URL", async () => {
    const email = uniqueEmail("invited");
    const invited = await http.post(`/v1/teams/${owner.teamId}/invitations`, { email }, { token: owner.token });
    expect(invited.status).toBe(201);
    const token = await invitationToken(service.outbox, email);
    const requestIds: string[] = [];
    const get = (path: string) => {
      const id = `redaction-${randomUUID()}`;
      requestIds.push(id);
      return http.get(path, { headers: { "x-request-id": id } });
    };

    expect((await get(`/v1/invites/${token}`)).status).toBe(200);
    await get(`/v1/invites/${token}?token=${token}`);
    await get(`/v1/invites/${token}/unknown`);
    await get(`/v1/attachments/download?t=${token}`);
    await get(`/v1/events?download_token=${token}&limit=5`);

    // The completion line is written once the answer went out: wait for every request's.
    const linesOf = (id: string) => logLines.filter((line) => line.includes(id));
    await waitUntil("every request's completion logged", () => requestIds.every((id) => linesOf(id).some((line) => line.includes("request completed"))));
    const incoming = requestIds.map((id) => JSON.parse(linesOf(id).find((line) => line.includes("incoming request"))!).req.url as string);
    expect(incoming).toEqual([
      "/v1/invites/[REDACTED]",
      "/v1/invites/[REDACTED]?token=[REDACTED]",
      "/v1/invites/[REDACTED]/unknown",
      "/v1/attachments/download?t=[REDACTED]",
      "/v1/events?download_token=[REDACTED]&limit=5",
    ]);
    expect(logLines.join("")).not.toContain(token);
  });
});

describe("sign-in code guesses", () => {
  it("answers forty parallel wrong guesses for one email in order: ten wrong codes, then rate limits", async () => {
    const email = uniqueEmail("guessed");
    const code = await requestCode(http, service.outbox, email);
    const guesses = Array.from({ length: 40 }, (_, index) => String((Number(code) + 1 + index) % 1_000_000).padStart(6, "0"));
    const batch = randomUUID();
    const answers = await Promise.all(
      guesses.map((guess, index) => http.post("/v1/auth/verify-code", { email, code: guess }, { headers: { "x-request-id": `guess-${batch}-${index}` } })),
    );
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(10);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(30);
    for (const answer of answers.filter((entry) => entry.status === 429)) expect(answer.headers.get("retry-after")).toBe("1");

    // The order the service answered in, from its log: the first ten guesses it judged were wrong
    // codes; then the email was locked and every later guess was a rate limit.
    const answered = () =>
      logLines
        .filter((line) => line.includes(`guess-${batch}-`) && line.includes("request completed"))
        .map((line) => JSON.parse(line).res.statusCode as number);
    await waitUntil("every guess's completion logged", () => answered().length === guesses.length);
    expect(answered()).toEqual([...Array(10).fill(401), ...Array(30).fill(429)]);
    // The lock holds against the right code too.
    expect((await http.post("/v1/auth/verify-code", { email, code })).status).toBe(429);
  });
});
