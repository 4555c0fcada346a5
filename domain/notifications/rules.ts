import { createHash } from "node:crypto";
import { derivedId } from "../shared/ids.ts";

/** Channels a notification goes out on besides the inbox (which every notification has). */
export const DELIVERY_CHANNELS = ["email", "push"] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export const DEVICE_PLATFORMS = ["ios", "android"] as const;
export const DEVICE_ENVIRONMENTS = ["sandbox", "production"] as const;
export type DeviceEnvironment = (typeof DEVICE_ENVIRONMENTS)[number];

/** SPEC, Limits: a soft-deleted notification is hard-deleted 90 days later. */
export const PURGE_AFTER_MS = 90 * 24 * 60 * 60 * 1000;

/** SPEC: anything other than `sandbox` is production. */
export const deviceEnvironment = (value: string | undefined | null): DeviceEnvironment => (value === "sandbox" ? "sandbox" : "production");

/**
 * The id of a source fact's notification to one recipient: a redelivered source fact creates the
 * same id, which the inbox decider refuses to create twice.
 */
export const notificationId = (sourceId: string, notificationType: string, userId: string): string => derivedId(`notification:${sourceId}:${notificationType}:${userId}`);

/** The device subject's token: a hash, because a push token is a credential and free text. */
export const tokenKey = (token: string): string => createHash("sha256").update(token).digest("hex").slice(0, 32);
