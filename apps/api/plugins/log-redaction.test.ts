import { describe, expect, it } from "vitest";
import { REDACTED, redactingSerializers, redactText, redactUrl } from "./log-redaction.ts";

const TOKEN = "Zm9vYmFyYmF6cXV4LXRva2VuLXZhbHVlLTQzLWNoYXJz";

describe("redactText", () => {
  it("hides invitation tokens in API paths and in the emailed link", () => {
    expect(redactText(`/v1/invites/${TOKEN}`)).toBe(`/v1/invites/${REDACTED}`);
    expect(redactText(`/v1/invites/${TOKEN}?x=1`)).toBe(`/v1/invites/${REDACTED}?x=1`);
    expect(redactText(`https://app.example/invites/${TOKEN}`)).toBe(`https://app.example/invites/${REDACTED}`);
    expect(redactText(`route GET /V1//Invites/${TOKEN}/extra not found`)).toBe(`route GET /V1//Invites/${REDACTED}/extra not found`);
  });

  it("keeps the accept route readable", () => {
    expect(redactText("/v1/invites/accept")).toBe("/v1/invites/accept");
    expect(redactText("/v1/invites/accept?token=abc")).toBe(`/v1/invites/accept?token=${REDACTED}`);
    expect(redactText(`/v1/invites/accepted-${TOKEN}`)).toBe(`/v1/invites/${REDACTED}`);
  });

  it("hides credentials in query parameters and leaves the others alone", () => {
    expect(redactText("/v1/attachments/download?t=abc&x=1")).toBe(`/v1/attachments/download?t=${REDACTED}&x=1`);
    expect(redactText("/x?download_token=abc&limit=5&secret=s&code=123456&access_token=q")).toBe(
      `/x?download_token=${REDACTED}&limit=5&secret=${REDACTED}&code=${REDACTED}&access_token=${REDACTED}`,
    );
    expect(redactText("/x?Token=abc")).toBe(`/x?Token=${REDACTED}`);
    expect(redactText("/x?download%5Ftoken=abc")).toBe(`/x?download%5Ftoken=${REDACTED}`);
    expect(redactText("/v1/events?limit=5&cursor=2024-01-01")).toBe("/v1/events?limit=5&cursor=2024-01-01");
  });
});

describe("redactUrl", () => {
  it("hides route parameters whose name says they are a credential", () => {
    expect(redactUrl("/v1/things/abc/download/s3cr3t", "/v1/things/:id/download/:download_token")).toBe(`/v1/things/abc/download/${REDACTED}`);
    expect(redactUrl("/v1/things/abc?token=x", "/v1/things/:id")).toBe(`/v1/things/abc?token=${REDACTED}`);
    expect(redactUrl(`/v1/invites/${TOKEN}`, "/v1/invites/:token")).toBe(`/v1/invites/${REDACTED}`);
  });
});

describe("redactingSerializers", () => {
  it("logs a request with its URL redacted", () => {
    const logged = redactingSerializers.req({
      method: "GET",
      url: `/v1/invites/${TOKEN}`,
      ip: "127.0.0.1",
      routeOptions: { url: "/v1/invites/:token" },
      socket: { remotePort: 5000 },
    });
    expect(logged).toEqual({ method: "GET", url: `/v1/invites/${REDACTED}`, version: undefined, host: undefined, remoteAddress: "127.0.0.1", remotePort: 5000 });
  });

  it("logs an error with every text in it redacted, without changing the error", () => {
    const extra = { link: `/v1/invites/${TOKEN}` };
    const error = Object.assign(new Error(`failed on /v1/invites/${TOKEN}`, { cause: new Error(`?token=${TOKEN}`) }), { extra });
    const logged = JSON.stringify(redactingSerializers.err(error));
    expect(logged).not.toContain(TOKEN);
    expect(logged).toContain(REDACTED);
    expect(extra.link).toContain(TOKEN);
  });
});
