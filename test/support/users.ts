import { randomBytes } from "node:crypto";
import type { Client } from "./http.ts";
import { latestCode } from "./outbox.ts";

export type SignedIn = { token: string; userId: string; email: string; teamId: string; body: any };

export const uniqueEmail = (label = "user") => `${label}-${randomBytes(4).toString("hex")}@example.test`;

/** Asks for a sign-in code for `email` (send-code must answer 200) and returns it from the mail outbox. */
export async function requestCode(http: Client, outbox: string, email: string): Promise<string> {
  const sent = await http.post("/v1/auth/send-code", { email });
  if (sent.status !== 200) throw new Error(`send-code answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  return latestCode(outbox, email);
}

/** Signs a user in through send-code and verify-code, reading the code from the mail outbox. */
export async function signIn(http: Client, outbox: string, email = uniqueEmail()): Promise<SignedIn> {
  const code = await requestCode(http, outbox, email);
  const verified = await http.post("/v1/auth/verify-code", { email, code });
  if (verified.status !== 200 && verified.status !== 201) {
    throw new Error(`verify-code answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  }
  return { token: verified.body.token, userId: verified.body.user.id, email, teamId: verified.body.teams[0]?.id, body: verified.body };
}
