import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import nodemailer from "nodemailer";
import type { Config } from "./config.ts";

export type Email = { to: string; subject: string; text: string };
export type Mailer = { send: (email: Email) => Promise<void>; close: () => void };

/**
 * With SMTP_URL set, mail goes through SMTP; otherwise each email is a JSON file `{to, subject,
 * text}` in MAIL_OUTBOX_DIR (written to a temp name and renamed, so readers never see half a file).
 */
export function createMailer(config: Pick<Config, "smtpUrl" | "mailFrom" | "mailOutboxDir">): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      send: async (email) => {
        await transport.sendMail({ from: config.mailFrom, to: email.to, subject: email.subject, text: email.text });
      },
      close: () => transport.close(),
    };
  }
  return {
    send: async (email) => {
      await mkdir(config.mailOutboxDir, { recursive: true });
      const name = `${Date.now()}-${randomUUID()}.json`;
      const temporary = join(config.mailOutboxDir, `.${name}.tmp`);
      await writeFile(temporary, JSON.stringify(email, null, 2));
      await rename(temporary, join(config.mailOutboxDir, name));
    },
    close: () => undefined,
  };
}
