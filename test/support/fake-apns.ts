import { execFileSync } from "node:child_process";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeProtectedHeader, jwtVerify } from "jose";

/** How the fake answers pushes to a token, as APNs does (APNs docs, "Handling notification responses"). */
export type TokenBehaviour = "ok" | "unregistered" | "bad" | "unavailable";

/** One push the fake accepted or refused, with what it checked. */
export type ReceivedPush = { token: string; topic: string | undefined; pushType: string | undefined; payload: any; status: number };

export type FakeApns = {
  url: string;
  /** PEM of the gateway's self-signed certificate, for APNS_CA_FILE. */
  caFile: string;
  /** The provider token settings the service must sign with. */
  keyId: string;
  teamId: string;
  topic: string;
  privateKeyPem: string;
  received: ReceivedPush[];
  /** Requests refused for a bad bearer token or topic (403), which a correct client never causes. */
  refusedAuth: string[];
  behave: (token: string, behaviour: TokenBehaviour) => void;
  close: () => Promise<void>;
};

/** A self-signed certificate for 127.0.0.1, made with the openssl binary (Node cannot make one). */
function selfSignedCertificate(dir: string): { key: Buffer; cert: Buffer; certFile: string } {
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyFile, "-out", certFile,
  ], { stdio: "ignore" });
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}

async function authorized(header: string | undefined, publicKey: KeyObject, keyId: string, teamId: string): Promise<string | null> {
  const token = /^bearer (.+)$/i.exec(header ?? "")?.[1];
  if (!token) return "MissingProviderToken";
  try {
    if (decodeProtectedHeader(token).kid !== keyId) return "InvalidProviderToken";
    await jwtVerify(token, publicKey, { algorithms: ["ES256"], issuer: teamId });
    return null;
  } catch {
    return "InvalidProviderToken";
  }
}

/**
 * A local HTTP/2 gateway over TLS answering as APNs does: `POST /3/device/<token>` with the
 * provider token checked (ES256 signature, `kid`, `iss`) and `apns-topic` compared; 200 with an
 * `apns-id`, 410 `{"reason":"Unregistered"}`, 400 `{"reason":"BadDeviceToken"}` or 503
 * `{"reason":"ServiceUnavailable"}` per token.
 */
export async function startFakeApns(): Promise<FakeApns> {
  const dir = mkdtempSync(join(tmpdir(), "fake-apns-"));
  const { key, cert, certFile } = selfSignedCertificate(dir);
  const signing = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const keyId = "ABC123DEFG";
  const teamId = "TEAM123456";
  const topic = "com.example.analytics";
  const behaviours = new Map<string, TokenBehaviour>();
  const received: ReceivedPush[] = [];
  const refusedAuth: string[] = [];

  const server: Http2SecureServer = createSecureServer({ key, cert, allowHTTP1: false });
  // The client keeps its session open; closing the fake ends them so close() does not wait on it.
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", async () => {
      const answer = (status: number, body?: object) => {
        if (stream.destroyed) return;
        stream.respond({ ":status": status, "apns-id": "00000000-0000-4000-8000-000000000000", ...(body ? { "content-type": "application/json" } : {}) });
        stream.end(body ? JSON.stringify(body) : undefined);
      };
      const token = /^\/3\/device\/([^/]+)$/.exec(String(headers[":path"]))?.[1];
      if (headers[":method"] !== "POST" || !token) return answer(405, { reason: "MethodNotAllowed" });
      const refusal = await authorized(headers.authorization as string | undefined, signing.publicKey, keyId, teamId);
      const topicHeader = headers["apns-topic"] as string | undefined;
      if (refusal || topicHeader !== topic) {
        refusedAuth.push(refusal ?? "TopicDisallowed");
        return answer(403, { reason: refusal ?? "TopicDisallowed" });
      }
      const behaviour = behaviours.get(token) ?? "ok";
      const status = { ok: 200, unregistered: 410, bad: 400, unavailable: 503 }[behaviour];
      let payload: unknown = null;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return answer(400, { reason: "PayloadEmpty" });
      }
      received.push({ token, topic: topicHeader, pushType: headers["apns-push-type"] as string | undefined, payload, status });
      if (behaviour === "ok") return answer(200);
      if (behaviour === "unregistered") return answer(410, { reason: "Unregistered", timestamp: Date.now() });
      if (behaviour === "bad") return answer(400, { reason: "BadDeviceToken" });
      return answer(503, { reason: "ServiceUnavailable" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    caFile: certFile,
    keyId,
    teamId,
    topic,
    privateKeyPem: signing.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    received,
    refusedAuth,
    behave: (token, behaviour) => void behaviours.set(token, behaviour),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The settings pointing the service's APNs client at `fake` (both gateways). */
export const apnsSettings = (fake: FakeApns): Record<string, string> => ({
  APNS_URL: fake.url,
  APNS_SANDBOX_URL: fake.url,
  APNS_KEY_ID: fake.keyId,
  APNS_TEAM_ID: fake.teamId,
  APNS_PRIVATE_KEY: fake.privateKeyPem,
  APNS_TOPIC: fake.topic,
  APNS_CA_FILE: fake.caFile,
});
