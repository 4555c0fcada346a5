import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentedPath } from "../../apps/api/plugins/openapi.ts";
import { client, type Client } from "../support/http.ts";
import { startTestService, stopTestService, type TestService } from "../support/service.ts";

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>; security?: unknown[]; description?: string };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let service: TestService;
let http: Client;
let document: Document;

beforeAll(async () => {
  service = await startTestService(undefined, ["api"]);
  http = client(service.baseUrl);
  const response = await http.get<Document>("/v1/openapi.json");
  expect(response.status).toBe(200);
  document = response.body;
});
afterAll(() => stopTestService(service));

/** `/v1/projects/:id` as OpenAPI writes it: `/v1/projects/{id}`. */
const openApiPath = (url: string) => documentedPath(url).replace(/:(\w+)/g, "{$1}");

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(document) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("describes every registered route with a success response schema, its access and its errors", () => {
    const routes = service.app!.registeredRoutes.filter((route) => !route.hidden);
    expect(routes.length).toBeGreaterThan(60);
    const problems: string[] = [];
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      const name = `${route.method} ${route.url}`;
      if (!operation) {
        problems.push(`${name}: missing`);
        continue;
      }
      const responses = Object.entries(operation.responses ?? {});
      const successes = responses.filter(([status]) => status.startsWith("2"));
      if (successes.length === 0) problems.push(`${name}: no success response`);
      // JSON answers, and the binary ones (an attachment download) under their own media type.
      for (const [status, response] of responses) {
        if (!Object.values(response.content ?? {}).some((media) => media.schema)) problems.push(`${name}: ${status} has no schema`);
      }
      if (!responses.some(([status]) => status === "503")) problems.push(`${name}: no 503`);
      if (!operation.description?.includes("**Access.**")) problems.push(`${name}: no access rule`);
    }
    expect(problems).toEqual([]);
  });

  it("gives protected routes a security requirement and the errors their access implies", () => {
    const list = document.paths["/v1/projects"]!.get!;
    expect(list.security).toEqual([{ bearer: [] }, { cookie: [] }]);
    expect(document.paths["/v1/ingest"]!.post!.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(list.responses!)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "503"]));
    const create = document.paths["/v1/projects"]!.post!;
    expect(Object.keys(create.responses!)).toEqual(expect.arrayContaining(["201", "409"]));
    expect(create.responses!["201"]!.content!["application/json"]).toHaveProperty("example");
    expect(document.paths["/v1/auth/send-code"]?.post?.security).toBeUndefined();
    expect(document.paths["/v1/attachments/download"]!.get!.responses!["200"]!.content).toHaveProperty("application/octet-stream");
  });

  it("serves an interactive reference at /docs", async () => {
    const page = await fetch(`${service.baseUrl}/docs`, { redirect: "follow" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
  });
});
