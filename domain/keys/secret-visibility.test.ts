import { describe, expect, it } from "vitest";
import { maskSecret, maySeeSecret, visibleSecret, type KeySecret } from "./secret-visibility.ts";

const OWNER = "00000000-0000-4000-8000-000000000001";
const MEMBER = "00000000-0000-4000-8000-000000000002";

const key = (keyType: KeySecret["keyType"], createdBy: string | null): KeySecret => ({
  keyType,
  createdBy,
  secret: `svc_${keyType}_AbCdEfGhIjKlMnOpQrStUvWxYz012345`,
});

describe("maySeeSecret", () => {
  it("shows admins and owners every key of their team", () => {
    for (const role of ["owner", "admin"] as const) {
      for (const type of ["client", "agent", "import"] as const) {
        expect(maySeeSecret(key(type, OWNER), { userId: MEMBER, role })).toBe(true);
        expect(maySeeSecret(key(type, null), { userId: MEMBER, role })).toBe(true);
      }
    }
  });

  it("shows members client keys and the keys they created, nothing else", () => {
    const member = { userId: MEMBER, role: "member" as const };
    expect(maySeeSecret(key("client", OWNER), member)).toBe(true);
    expect(maySeeSecret(key("agent", MEMBER), member)).toBe(true);
    expect(maySeeSecret(key("import", MEMBER), member)).toBe(true);
    expect(maySeeSecret(key("agent", OWNER), member)).toBe(false);
    expect(maySeeSecret(key("import", OWNER), member)).toBe(false);
    expect(maySeeSecret(key("agent", null), member)).toBe(false);
  });

  it("shows nothing to someone outside the team", () => {
    expect(maySeeSecret(key("client", OWNER), { userId: OWNER, role: null })).toBe(false);
    expect(maySeeSecret(key("agent", OWNER), { userId: OWNER, role: null })).toBe(false);
  });
});

describe("maskSecret", () => {
  it("keeps the type prefix and the last four characters", () => {
    expect(maskSecret(key("agent", OWNER))).toBe("svc_agent_...2345");
    expect(maskSecret(key("import", OWNER))).toBe("svc_import_...2345");
  });

  it("hides short or unprefixed secrets entirely", () => {
    expect(maskSecret({ keyType: "agent", secret: "svc_agent_abc123" })).toBe("svc_agent_...");
    expect(maskSecret({ keyType: "agent", secret: "legacy-secret-without-prefix" })).toBe("...efix");
  });
});

describe("visibleSecret", () => {
  it("returns the full secret or the masked form", () => {
    const agent = key("agent", OWNER);
    expect(visibleSecret(agent, { userId: OWNER, role: "owner" })).toBe(agent.secret);
    expect(visibleSecret(agent, { userId: MEMBER, role: "member" })).toBe("svc_agent_...2345");
    expect(visibleSecret(agent, { userId: MEMBER, role: "member" })).not.toContain(agent.secret.slice(10, -4));
  });
});
