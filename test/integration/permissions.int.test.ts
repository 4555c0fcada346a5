import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, createProject, projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Every kind of caller against every route family: JWT users by team role (and a user of another
 * team), agent keys with and without the family's permission, client and import keys, and no
 * credentials. Each cell is the status the spec's authorization rules give.
 */

type Caller = "owner" | "admin" | "member" | "outsider" | "agent" | "limitedAgent" | "client" | "import" | "anonymous";
const CALLERS: Caller[] = ["owner", "admin", "member", "outsider", "agent", "limitedAgent", "client", "import", "anonymous"];

let service: TestService;
let http: Client;
let owner: SignedIn;
let teamId: string;
let tokens: Record<Caller, string | undefined>;
let fixture: { projectId: string; appId: string; keyId: string };

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  teamId = owner.teamId;
  const admin = await joinTeam(http, service.outbox, { teamId, inviter: owner, role: "admin" });
  const member = await joinTeam(http, service.outbox, { teamId, inviter: owner, role: "member" });
  const outsider = await signIn(http, service.outbox);
  const { project, app, clientKey } = await projectWithApp(http, owner.token, teamId);
  const key = async (body: Record<string, unknown>) => (await http.post("/v1/auth/keys", body, { token: owner.token })).body.api_key;
  const agent = await key({ name: "agent", key_type: "agent", team_id: teamId });
  const limitedAgent = await key({ name: "limited", key_type: "agent", team_id: teamId, permissions: ["users:write"] });
  const importKey = await key({ name: "import", key_type: "import", app_id: app.id });
  tokens = {
    owner: owner.token,
    admin: admin.token,
    member: member.token,
    outsider: outsider.token,
    agent: agent.secret,
    limitedAgent: limitedAgent.secret,
    client: clientKey,
    import: importKey.secret,
    anonymous: undefined,
  };
  fixture = { projectId: project.id, appId: app.id, keyId: limitedAgent.id };
});
afterAll(async () => stopTestService(service));

type Family = { name: string; call: (token: string | undefined) => Promise<{ status: number; body: unknown }>; expected: Record<Caller, number> };

const freshProject = () => createProject(http, owner.token, teamId);
const freshApp = async () => createApp(http, owner.token, fixture.projectId);

const FAMILIES: Family[] = [
  {
    name: "read a project",
    call: (token) => http.get(`/v1/projects/${fixture.projectId}`, { token }),
    expected: { owner: 200, admin: 200, member: 200, outsider: 404, agent: 200, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "list projects",
    call: (token) => http.get(`/v1/projects`, { token }),
    expected: { owner: 200, admin: 200, member: 200, outsider: 200, agent: 200, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "create a project",
    call: (token) => http.post("/v1/projects", { team_id: teamId, name: "p", slug: `p-${crypto.randomUUID().slice(0, 8)}` }, { token }),
    expected: { owner: 201, admin: 201, member: 403, outsider: 404, agent: 201, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "update a project",
    call: (token) => http.patch(`/v1/projects/${fixture.projectId}`, { name: `n${Math.random()}` }, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 200, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "delete a project",
    call: async (token) => http.delete(`/v1/projects/${(await freshProject()).id}`, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "read an app",
    call: (token) => http.get(`/v1/apps/${fixture.appId}`, { token }),
    expected: { owner: 200, admin: 200, member: 200, outsider: 404, agent: 200, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "create an app",
    call: (token) => http.post("/v1/apps", { name: "a", platform: "web", bundle_id: "example.com", project_id: fixture.projectId }, { token }),
    expected: { owner: 201, admin: 201, member: 403, outsider: 404, agent: 201, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "rename an app",
    call: (token) => http.patch(`/v1/apps/${fixture.appId}`, { name: `n${Math.random()}` }, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 200, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "delete an app",
    call: async (token) => http.delete(`/v1/apps/${(await freshApp()).id}`, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "list api keys",
    call: (token) => http.get(`/v1/auth/keys?team_id=${teamId}`, { token }),
    expected: { owner: 200, admin: 200, member: 200, outsider: 200, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "create an agent key",
    call: (token) => http.post("/v1/auth/keys", { name: "k", key_type: "agent", team_id: teamId }, { token }),
    expected: { owner: 201, admin: 201, member: 403, outsider: 404, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "create an import key",
    call: (token) => http.post("/v1/auth/keys", { name: "k", key_type: "import", app_id: fixture.appId }, { token }),
    expected: { owner: 201, admin: 201, member: 403, outsider: 404, agent: 201, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "update an api key",
    call: (token) => http.patch(`/v1/auth/keys/${fixture.keyId}`, { name: `k${Math.random()}` }, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "read audit logs",
    call: (token) => http.get(`/v1/teams/${teamId}/audit-logs`, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 200, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "rename the team",
    call: (token) => http.patch(`/v1/teams/${teamId}`, { name: `t${Math.random()}` }, { token }),
    expected: { owner: 200, admin: 200, member: 403, outsider: 404, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
  {
    name: "invite to the team",
    call: (token) => http.post(`/v1/teams/${teamId}/invitations`, { email: `x${Math.random()}@example.test` }, { token }),
    expected: { owner: 201, admin: 201, member: 403, outsider: 404, agent: 403, limitedAgent: 403, client: 403, import: 403, anonymous: 401 },
  },
];

describe("permission matrix", () => {
  it.each(FAMILIES.map((family) => [family.name, family] as const))("%s", async (_name, family) => {
    const actual: Partial<Record<Caller, number>> = {};
    for (const caller of CALLERS) {
      const answer = await family.call(tokens[caller]);
      actual[caller] = answer.status;
      if (answer.status >= 400) expect(answer.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
    }
    expect(actual).toEqual(family.expected);
  });
});
