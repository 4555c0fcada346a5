import { afterAll, beforeAll, it } from "vitest";
import { writeFileSync } from "node:fs";
import { client } from "../support/http.ts";
import { startTestService, stopTestService, type TestService } from "../support/service.ts";
let service: TestService;
beforeAll(async () => { service = await startTestService(undefined, ["api"]); });
afterAll(() => stopTestService(service));
it("dumps", async () => {
  const doc: any = (await client(service.baseUrl).get("/v1/openapi.json")).body;
  const mine = Object.fromEntries(Object.entries(doc.paths).filter(([p]) => /metric|funnel/.test(p)));
  writeFileSync("/tmp/defwork/doc.json", JSON.stringify(mine, null, 2));
});
