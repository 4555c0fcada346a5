import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDownloadTokens } from "../../apps/api/attachments/download-token.ts";
import { aFile, attachmentConfig, download, expectStatus, reservationFor, reserve, TEST_JWT_SECRET, upload } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anError, type Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * Reserving, uploading and downloading attachments through HTTP, with the filesystem store: the
 * round trip and its exact download headers, the signed URL's expiry and tampering, and every
 * refusal of a reservation or an upload (400, 409, 410, 413, 415).
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let clientKey: string;
let attachmentsDir: string;

beforeAll(async () => {
  const config = await attachmentConfig();
  attachmentsDir = config.attachments.dir;
  ({ service, http, owner } = await startWithOwner(config));
  ({ clientKey } = await projectWithApp(http, owner.token, owner.teamId));
});
afterAll(() => stopTestService(service));

/** Every file under the attachments directory (the filesystem store's objects, temporary files included). */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(attachmentsDir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

async function reserved(size: number, fields: Record<string, unknown> = {}) {
  const file = aFile(size);
  const response = await reserve(http, clientKey, reservationFor(file, fields));
  expectStatus(response, 201);
  return { file, id: response.body.attachment_id as string, body: response.body };
}

describe("the round trip", () => {
  it("reserves, uploads, shows a download URL and serves the exact bytes with the download headers", async () => {
    const { file, id, body } = await reserved(70_000, { original_filename: "Crash log é.txt", content_type: "text/plain; charset=utf-8", user_id: "user-1" });
    expect(body.upload_url).toBe(`${service.config.publicBaseUrl}/v1/ingest/attachment/${id}`);
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    const before = await http.get(`/v1/attachments/${id}`, { token: owner.token });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ id, uploaded_at: null, size_bytes: 70_000, sha256: file.sha256, user_id: "user-1", event_id: null, issue_id: null });
    expect(before.body).not.toHaveProperty("download_url");

    expect(await upload(http, clientKey, id, file.bytes)).toMatchObject({ status: 200, body: { uploaded: true } });
    const after = await http.get(`/v1/attachments/${id}`, { token: owner.token });
    expect(after.body.uploaded_at).toEqual(expect.any(String));
    expect(after.body).not.toHaveProperty("storage_key");
    const link = after.body.download_url;
    expect(link).toMatchObject({ original_filename: "Crash log é.txt", content_type: "text/plain; charset=utf-8", size_bytes: 70_000 });
    expect(link.url).toMatch(/\/v1\/attachments\/download\?t=/);
    expect(Date.parse(link.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);

    const got = await download(service.baseUrl, link.url);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(file.bytes)).toBe(true);
    expect(got.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(got.headers.get("content-length")).toBe("70000");
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="Crash log _.txt"; filename*=UTF-8''Crash%20log%20%C3%A9.txt`);
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("cache-control")).toBe("private, no-store");
  });

  it("refuses a download token that is missing, tampered with, expired or not one (401)", async () => {
    const { file, id } = await reserved(10);
    expectStatus(await upload(http, clientKey, id, file.bytes), 200);
    const tokens = createDownloadTokens(TEST_JWT_SECRET);
    const fresh = await tokens.sign(id);
    expect((await download(service.baseUrl, `/v1/attachments/download?t=${fresh.token}`)).status).toBe(200);

    const expired = await tokens.sign(id, new Date(Date.now() - 61_000));
    const [header, payload, signature] = fresh.token.split(".");
    const otherId = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), att: "00000000-0000-4000-8000-000000000000" })).toString("base64url");
    const foreignKey = await createDownloadTokens("another-secret-0123456789abcdef0123").sign(id);
    for (const query of ["", "?t=", `?t=${expired.token}`, `?t=${header}.${otherId}.${signature}`, `?t=${foreignKey.token}`, `?t=${owner.token}`]) {
      const answer = await http.get(`/v1/attachments/download${query}`);
      expect(answer, query).toMatchObject({ status: 401, body: anError });
    }
    // And a download token is no session.
    expect((await http.get("/v1/auth/me", { token: fresh.token })).status).toBe(401);
  });

  it("answers 404 for a download of an attachment not uploaded or deleted", async () => {
    const tokens = createDownloadTokens(TEST_JWT_SECRET);
    const pending = await reserved(10);
    expect((await http.get(`/v1/attachments/download?t=${(await tokens.sign(pending.id)).token}`)).status).toBe(404);
    const { file, id } = await reserved(10);
    expectStatus(await upload(http, clientKey, id, file.bytes), 200);
    const link = (await http.get(`/v1/attachments/${id}`, { token: owner.token })).body.download_url.url;
    expectStatus(await http.delete(`/v1/attachments/${id}`, { token: owner.token }), 200);
    expect((await download(service.baseUrl, link)).status).toBe(404);
    expect((await http.get(`/v1/attachments/${id}`, { token: owner.token })).status).toBe(404);
  });
});

describe("upload refusals", () => {
  it("answers 409 already_uploaded to a second upload and keeps the first one's bytes only", async () => {
    const { file, id } = await reserved(100);
    expectStatus(await upload(http, clientKey, id, file.bytes), 200);
    const files = await storedFiles();
    expect(await upload(http, clientKey, id, file.bytes)).toMatchObject({ status: 409, body: { error: "already_uploaded" } });
    expect(await storedFiles()).toEqual(files);
  });

  it("answers 409 to the loser of two uploads at once and removes its object", async () => {
    const { file, id } = await reserved(50_000);
    const before = (await storedFiles()).length;
    const answers = await Promise.all([upload(http, clientKey, id, file.bytes), upload(http, clientKey, id, file.bytes), upload(http, clientKey, id, file.bytes)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    expect((await storedFiles()).length).toBe(before + 1);
  });

  it("answers 410 to an upload after a delete", async () => {
    const { file, id } = await reserved(10);
    expectStatus(await http.delete(`/v1/attachments/${id}`, { token: owner.token }), 200);
    expect(await upload(http, clientKey, id, file.bytes)).toMatchObject({ status: 410, body: anError });
  });

  it("answers 413 to a body over the declared size, 400 to a shorter one or another hash, and keeps nothing", async () => {
    const { file, id } = await reserved(1_000);
    const before = await storedFiles();
    const larger = Buffer.concat([file.bytes, Buffer.from("x")]);
    expect(await upload(http, clientKey, id, larger)).toMatchObject({ status: 413, body: anError });
    expect((await upload(http, clientKey, id, file.bytes.subarray(0, 999))).status).toBe(400);
    const tampered = Buffer.from(file.bytes);
    tampered[0] = tampered[0]! ^ 0xff;
    expect(await upload(http, clientKey, id, tampered)).toMatchObject({ status: 400, body: { error: expect.stringContaining("sha256") } });
    expect(await storedFiles()).toEqual(before);
    // Still uploadable with the right bytes.
    expect((await upload(http, clientKey, id, file.bytes)).status).toBe(200);
  });

  it("answers 413 to a chunked body over the declared size (no Content-Length to refuse early)", async () => {
    const { file, id } = await reserved(1_000);
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(file.bytes);
        controller.enqueue(new Uint8Array(500));
        controller.close();
      },
    });
    const response = await fetch(`${service.baseUrl}/v1/ingest/attachment/${id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${clientKey}`, "content-type": "application/octet-stream" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it("refuses other content types (415), unknown ids and other apps' keys (404)", async () => {
    const { file, id } = await reserved(10);
    expect((await upload(http, clientKey, id, file.bytes, { "content-type": "image/png" })).status).toBe(415);
    expect((await upload(http, clientKey, "00000000-0000-4000-8000-000000000000", file.bytes)).status).toBe(404);
    const other = await projectWithApp(http, owner.token, owner.teamId);
    expect((await upload(http, other.clientKey, id, file.bytes)).status).toBe(404);
    expect((await upload(http, owner.token, id, file.bytes)).status).toBe(403);
  });
});

describe("reservation refusals", () => {
  it("refuses executable and script content types with 415, in any case and with parameters", async () => {
    for (const contentType of ["application/x-msdownload", "Application/X-Sh", "text/javascript; charset=utf-8", "application/vnd.android.package-archive", "text/html"]) {
      const answer = await reserve(http, clientKey, reservationFor(aFile(10), { content_type: contentType }));
      expect(answer, contentType).toMatchObject({ status: 415, body: anError });
    }
  });

  it("checks the fields (400) and the key (401/403)", async () => {
    const file = aFile(10);
    const bad = [
      { sha256: "z".repeat(64) },
      { sha256: file.sha256.slice(1) },
      { size_bytes: 0 },
      { size_bytes: 1.5 },
      { original_filename: "" },
      { original_filename: "x".repeat(256) },
      { original_filename: "a\nb" },
      { content_type: "png" },
      { content_type: "text/plain\r\nx-evil: 1" },
      { client_event_id: "nope" },
    ];
    for (const fields of bad) expect((await reserve(http, clientKey, reservationFor(file, fields))).status, JSON.stringify(fields)).toBe(400);
    const upper = await reserve(http, clientKey, reservationFor(file, { sha256: file.sha256.toUpperCase(), user_id: "", is_dev: true }));
    expect(upper.status).toBe(201);
    expect((await http.get(`/v1/attachments/${upper.body.attachment_id}`, { token: owner.token })).body).toMatchObject({ sha256: file.sha256, user_id: null, is_dev: true });
    expect((await reserve(http, clientKey, reservationFor(file, { user_id: null, is_dev: null }))).status).toBe(201);
    expect((await http.post("/v1/ingest/attachment", reservationFor(file))).status).toBe(401);
    expect((await http.post("/v1/ingest/attachment", reservationFor(file), { token: owner.token })).status).toBe(403);
  });
});
