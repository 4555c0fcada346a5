import { readFileSync } from "node:fs";
import apn from "@parse/node-apn";
import type { ApnsConfig } from "../../config.ts";
import type { DeviceEnvironment } from "../../../domain/notifications/rules.ts";

/** What became of one push: delivered, refused for good (and whether the device must go), or worth retrying. */
export type PushOutcome =
  | { kind: "delivered" }
  | { kind: "refused"; reason: string; removeDevice: "unregistered" | "bad_token" | null }
  | { kind: "retry"; reason: string };

export type PushMessage = { title: string; body: string; notificationId: string; type: string; link: string | null };

export type PushGateway = {
  send: (target: { token: string; environment: DeviceEnvironment }, message: PushMessage) => Promise<PushOutcome>;
  close: () => void;
};

/**
 * APNs reasons that mean the token itself is bad (APNs docs, "Handling notification responses"):
 * 410 Unregistered, 400 BadDeviceToken. DeviceTokenNotForTopic is a token of another app.
 */
function removalFor(status: number | undefined, reason: string | undefined): "unregistered" | "bad_token" | null {
  if (status === 410 || reason === "Unregistered" || reason === "ExpiredToken") return "unregistered";
  if (reason === "BadDeviceToken" || reason === "DeviceTokenNotForTopic") return "bad_token";
  return null;
}

/**
 * iOS push through @parse/node-apn: HTTP/2 to the gateway with a provider token (ES256 JWT signed
 * with the .p8 key, refreshed by the library), one provider per environment, as a sandbox build's
 * token is only known to the sandbox gateway. Its `address` and `port` name the gateway, so the
 * URLs are configurable (a test runs its own gateway).
 */
export function apnsGateway(config: ApnsConfig): PushGateway {
  // A PEM key passed through an environment variable often arrives with its newlines escaped.
  const key = config.privateKey.includes("-----BEGIN") ? config.privateKey.replace(/\\n/g, "\n") : config.privateKey;
  const ca = config.caFile === undefined ? undefined : [readFileSync(config.caFile)];
  const provider = (url: string, production: boolean) =>
    new apn.Provider({
      token: { key, keyId: config.keyId, teamId: config.teamId },
      address: new URL(url).hostname,
      port: Number(new URL(url).port || 443),
      production,
      ...(ca ? { ca } : {}),
    });
  const providers: Record<DeviceEnvironment, apn.Provider> = {
    production: provider(config.productionUrl, true),
    sandbox: provider(config.sandboxUrl, false),
  };
  return {
    send: async (target, message) => {
      const note = new apn.Notification();
      note.topic = config.topic;
      note.pushType = "alert";
      note.alert = { title: message.title, body: message.body };
      note.sound = "default";
      note.payload = { notification_id: message.notificationId, type: message.type, link: message.link };
      const result = await providers[target.environment].send(note, target.token);
      if (result.sent.length > 0) return { kind: "delivered" };
      const failure = result.failed[0];
      const reason = failure?.response?.reason ?? failure?.error?.message ?? "no answer from the gateway";
      const status = failure?.status === undefined ? undefined : Number(failure.status);
      const removeDevice = removalFor(status, failure?.response?.reason);
      if (removeDevice) return { kind: "refused", reason, removeDevice };
      // No status (no connection), 429 and 5xx are the gateway's trouble: try again later.
      if (status === undefined || status === 429 || status >= 500) return { kind: "retry", reason: status === undefined ? reason : `${status} ${reason}` };
      return { kind: "refused", reason: `${status} ${reason}`, removeDevice: null };
    },
    close: () => {
      providers.production.shutdown();
      providers.sandbox.shutdown();
    },
  };
}
