import { createHmac } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { DOWNLOAD_URL_TTL_SECONDS } from "../../../domain/attachments/rules.ts";

const AUDIENCE = "attachment-download";
const TYPE = "attachment-download+jwt";

export type SignedDownload = { token: string; expiresAt: string };

/**
 * Signed download tokens (HS256, 60 s) naming one attachment: the credential of
 * `GET /v1/attachments/download?t=`. Every instance derives the same key from the shared
 * session secret, so a URL signed by one works on all. The key is derived (HMAC of a fixed label)
 * rather than the secret itself, and the token carries its own `typ` and audience: a download
 * token can never verify as a session, nor a session as a download token.
 */
export function createDownloadTokens(secret: string) {
  const key = createHmac("sha256", secret).update("attachment download tokens").digest();
  return {
    /** A token for `attachmentId`, valid for 60 s from `now` (tests sign with a past `now`). */
    sign: async (attachmentId: string, now = new Date()): Promise<SignedDownload> => {
      const issuedAt = Math.floor(now.getTime() / 1000);
      const expiresAt = issuedAt + DOWNLOAD_URL_TTL_SECONDS;
      const token = await new SignJWT({ att: attachmentId })
        .setProtectedHeader({ alg: "HS256", typ: TYPE })
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { token, expiresAt: new Date(expiresAt * 1000).toISOString() };
    },
    /** The attachment id a valid, unexpired token names; null for anything else. */
    verify: async (token: string): Promise<string | null> => {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"], audience: AUDIENCE, typ: TYPE, requiredClaims: ["exp"] });
        return typeof payload.att === "string" ? payload.att : null;
      } catch {
        return null;
      }
    },
  };
}

export type DownloadTokens = ReturnType<typeof createDownloadTokens>;
