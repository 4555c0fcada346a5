import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { notFound } from "../shared/errors.ts";
import type { DeviceEnvironment } from "./rules.ts";

export type DeviceSummary = { deviceId: string; userId: string; createdAt: string };

/** The state of one push token's subject: the device holding it, if any. */
export type DeviceState = { device: DeviceSummary | null };

export type DeviceCommand =
  | {
      type: "RegisterDevice";
      /** The id a new device gets; a token already registered keeps its device's id. */
      newDeviceId: string;
      userId: string;
      token: string;
      platform: "ios" | "android";
      environment: DeviceEnvironment;
      appVersion: string | null;
      deviceModel: string | null;
      osVersion: string | null;
      at: string;
    }
  | { type: "RemoveDevice"; deviceId: string; userId: string; reason: "deleted" | "unregistered" | "bad_token" };

function decide(state: DeviceState, command: DeviceCommand): DomainEvent[] {
  switch (command.type) {
    case "RegisterDevice": {
      const current = state.device;
      return [
        {
          type: "DeviceRegistered",
          v: 1,
          device_id: current?.deviceId ?? command.newDeviceId,
          user_id: command.userId,
          // The SPEC's reassignment: the token now belongs to whoever registered it last.
          previous_user_id: current && current.userId !== command.userId ? current.userId : null,
          token: command.token,
          platform: command.platform,
          environment: command.environment,
          app_version: command.appVersion,
          device_model: command.deviceModel,
          os_version: command.osVersion,
          last_seen_at: command.at,
          created_at: current?.createdAt ?? command.at,
        },
      ];
    }
    case "RemoveDevice": {
      const current = state.device;
      // Another user's device, or one the token no longer names (removed, or re-registered since the gateway answered).
      if (!current || current.deviceId !== command.deviceId || current.userId !== command.userId) throw notFound("device");
      return [{ type: "DeviceRemoved", v: 1, device_id: command.deviceId, user_id: command.userId, reason: command.reason }];
    }
  }
}

function evolve(state: DeviceState, fact: DomainEvent): DeviceState {
  switch (fact.type) {
    case "DeviceRegistered":
      return { device: { deviceId: fact.device_id, userId: fact.user_id, createdAt: fact.created_at } };
    case "DeviceRemoved":
      return state.device?.deviceId === fact.device_id ? { device: null } : state;
    default:
      return state;
  }
}

/** One push token: registered, refreshed, reassigned to another user, removed. */
export const deviceDecider: Decider<DeviceState, DeviceCommand, DomainEvent> = { initialState: { device: null }, decide, evolve };
