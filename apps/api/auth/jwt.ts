import { jwtVerify, SignJWT } from "jose";

export type SessionClaims = { userId: string; email: string };

/** Sessions do not expire (the spec's 10-year cookie), so the JWT carries no `exp`: subject and email only. */
export function createSessionTokens(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    sign: (claims: SessionClaims) =>
      new SignJWT({ email: claims.email }).setProtectedHeader({ alg: "HS256" }).setSubject(claims.userId).setIssuedAt().sign(key),
    verify: async (token: string): Promise<SessionClaims | null> => {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] });
        if (typeof payload.sub !== "string" || typeof payload.email !== "string") return null;
        return { userId: payload.sub, email: payload.email };
      } catch {
        return null;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
