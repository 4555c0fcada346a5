import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { waitUntil } from "./processes.ts";

/** A mail the service wrote to its outbox directory (MAIL_OUTBOX_DIR) instead of sending it. */
export type Mail = { to: string; subject: string; text: string };

export async function outboxMessages(outbox: string): Promise<Mail[]> {
  const files = (await readdir(outbox).catch(() => [])).filter((name) => name.endsWith(".json")).sort();
  return Promise.all(files.map(async (name) => JSON.parse(await readFile(join(outbox, name), "utf8")) as Mail));
}

/** The newest sign-in code mailed to `email`; send-code writes the mail before it answers. */
export async function latestCode(outbox: string, email: string): Promise<string> {
  const mails = (await outboxMessages(outbox)).filter((mail) => mail.to === email.toLowerCase() && /sign-in code/i.test(mail.subject));
  const code = /\b(\d{6})\b/.exec(mails.at(-1)?.text ?? "")?.[1];
  if (!code) throw new Error(`no code mailed to ${email}`);
  return code;
}

/**
 * Waits for the worker to mail an invitation to `email` and returns the newest token other than
 * `previous` (a re-invitation mails a new one).
 */
export async function invitationToken(outbox: string, email: string, previous?: string): Promise<string> {
  return waitUntil(
    `an invitation mailed to ${email}`,
    async () =>
      (await outboxMessages(outbox))
        .filter((mail) => mail.to === email.toLowerCase())
        .map((mail) => /Invitation token: (\S+)/.exec(mail.text)?.[1])
        .filter((token): token is string => token !== undefined && token !== previous)
        .at(-1),
    10_000,
    100,
  );
}
