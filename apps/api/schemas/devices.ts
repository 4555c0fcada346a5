import { z } from "zod";
import { DEVICE_PLATFORMS } from "../../../domain/notifications/rules.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

const optionalText = z.string().max(255).nullish();

/**
 * The registration body. `channel` is free text so that anything but `mobile_push` gets the SPEC's
 * "unsupported channel" 400 from the handler, not a schema message; `environment` likewise, since
 * anything but `sandbox` means production.
 */
export const registerDeviceBody = z.object({
  channel: z.string().describe("Only `mobile_push`"),
  platform: z.enum(DEVICE_PLATFORMS),
  token: z.string().min(1).max(4096).describe("The push token; stored, never answered"),
  environment: z.string().max(64).nullish().describe("`sandbox`, or anything else for production"),
  app_version: optionalText,
  device_model: optionalText,
  os_version: optionalText,
});

/** SPEC, Device: never the token. */
export const deviceBody = z.object({
  id: z.string().uuid(),
  channel: z.literal("mobile_push"),
  platform: z.enum(DEVICE_PLATFORMS),
  environment: z.enum(["sandbox", "production"]),
  app_version: z.string().nullable(),
  device_model: z.string().nullable(),
  os_version: z.string().nullable(),
  last_seen_at: timestamp,
  created_at: timestamp,
});
export const deviceEnvelope = z.object({ device: deviceBody });
export const deviceList = z.object({ devices: z.array(deviceBody) });

export const exampleDevice = {
  id: "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a",
  channel: "mobile_push",
  platform: "ios",
  environment: "production",
  app_version: "2.4.0",
  device_model: "iPhone15,2",
  os_version: "18.1",
  last_seen_at: EXAMPLE.at,
  created_at: EXAMPLE.at,
} satisfies z.input<typeof deviceBody>;
