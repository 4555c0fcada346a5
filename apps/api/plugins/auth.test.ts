import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { PUBLIC } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { registerAuth } from "./auth.ts";

describe("registerAuth", () => {
  it("refuses to register a route that declares no access rule, so none is open by omission", async () => {
    const app = Fastify();
    registerAuth(app, {} as ApiDeps);
    app.get("/declared", { config: { access: PUBLIC } }, async () => ({ ok: true }));
    expect(() => app.get("/forgotten", async () => ({ ok: true }))).toThrow("route GET /forgotten declares no config.access");
    await app.close();
  });
});
