import type { Logger } from "pino";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import type { Log } from "../../streams/connection.ts";
import { runDurable } from "../../streams/durable.ts";
import type { Mailer } from "../mail.ts";

/** Mails the accept link of every created or re-sent invitation, from the facts on team subjects. */
export function startInvitationMailer(deps: { log: Log; mailer: Mailer; logger: Logger; publicBaseUrl: string }) {
  return runDurable(deps.log, {
    name: "invitation_mailer",
    stream: "DOMAIN",
    filter: "team.>",
    logger: deps.logger,
    handle: async (message) => {
      const envelope = decodeDomainEnvelope(message.data);
      for (const event of envelope.events) {
        if (event.type !== "InvitationCreated" && event.type !== "InvitationResent") continue;
        const link = `${deps.publicBaseUrl}/invites/${event.token}`;
        await deps.mailer.send({
          to: event.email,
          subject: "You are invited to join a team",
          text:
            `You have been invited to join a team as ${event.role}.\n\n` +
            `Accept the invitation: ${link}\n` +
            `Invitation token: ${event.token}\n\n` +
            `The invitation expires at ${event.expires_at}.`,
        });
      }
    },
  });
}
