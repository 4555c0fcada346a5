import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { PROJECTIONS } from "../../projections/registry.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anError, type Client } from "../support/http.ts";
import { startWithClient, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { uniqueEmail } from "../support/users.ts";

type Received = { from: string; to: string[]; data: string };

let service: TestService;
let http: Client;
let smtp: SMTPServer;
const received: Received[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (chunk: Buffer) => (data += chunk.toString("utf8")));
      stream.on("end", () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), data });
        callback();
      });
    },
  });
  smtp.listen(0, "127.0.0.1");
  await once(smtp.server, "listening");
  const port = (smtp.server.address() as AddressInfo).port;
  ({ service, http } = await startWithClient(await testConfig({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: "Analytics <login@example.test>" })));
});

afterAll(async () => {
  await stopTestService(service);
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe("email through SMTP", () => {
  it("sends the sign-in code to the SMTP server when SMTP_URL is set", async () => {
    const email = uniqueEmail("smtp");
    expect((await http.post("/v1/auth/send-code", { email })).status).toBe(200);
    const mail = received.find((message) => message.to.includes(email));
    expect(mail?.from).toBe("login@example.test");
    const code = /\b(\d{6})\b/.exec(mail!.data)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect((await http.post("/v1/auth/verify-code", { email, code })).status).toBe(201);
  });
});

describe("error contract", () => {
  it("answers unknown routes with 404 {error}", async () => {
    const response = await http.get("/v1/nothing-here");
    expect(response.status).toBe(404);
    expect(response.body).toEqual(anError);
  });

  it("answers malformed JSON, wrong types and empty bodies with 400 {error}", async () => {
    for (const rawBody of ["{", "[1,2", "null", '"text"', "{\"email\": 5}", "{\"email\": [\"a@b.c\"]}"]) {
      const response = await http.call("POST", "/v1/auth/send-code", { rawBody, headers: { "content-type": "application/json" } });
      expect(response.status, rawBody).toBe(400);
      expect(response.body).toEqual(anError);
    }
    const empty = await http.call("POST", "/v1/auth/verify-code", { rawBody: "", headers: { "content-type": "application/json" } });
    expect(empty.status).toBe(400);
  });

  it("answers oversized bodies with 413 and unsupported media types with 415", async () => {
    const big = JSON.stringify({ email: "a@b.c", pad: "x".repeat(1_100_000) });
    const tooLarge = await http.call("POST", "/v1/auth/send-code", { rawBody: big, headers: { "content-type": "application/json" } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual(anError);
    const xml = await http.call("POST", "/v1/auth/send-code", { rawBody: "<a/>", headers: { "content-type": "application/xml" } });
    expect(xml.status).toBe(415);
    expect(xml.body).toEqual(anError);
  });

  it("reports health and readiness with read-model lag", async () => {
    expect((await http.get("/healthz")).body).toEqual({ status: "ok" });
    const ready = await http.get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: "ready", nats: "ok", postgres: "ok" });
    const names = ready.body.projections.map((p: { name: string }) => p.name).sort();
    expect(names).toEqual(PROJECTIONS.map((projection) => projection.name).sort());
  });

  it("echoes a request id header", async () => {
    const response = await http.get("/healthz", { headers: { "x-request-id": "trace-123" } });
    expect(response.headers.get("x-request-id")).toBe("trace-123");
  });
});
