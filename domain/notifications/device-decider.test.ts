import { describe, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { deviceDecider, type DeviceCommand } from "./device-decider.ts";

const AT = "2026-11-25T12:00:00.000Z";
const LATER = "2026-11-25T13:00:00.000Z";

const register = (userId: string, at = AT): DeviceCommand => ({
  type: "RegisterDevice",
  newDeviceId: `new-${at}`,
  userId,
  token: "tok",
  platform: "ios",
  environment: "production",
  appVersion: "1.0",
  deviceModel: null,
  osVersion: null,
  at,
});
const registered = (userId: string, fields: Partial<Extract<DomainEvent, { type: "DeviceRegistered" }>> = {}): DomainEvent => ({
  type: "DeviceRegistered",
  v: 1,
  device_id: "d1",
  user_id: userId,
  previous_user_id: null,
  token: "tok",
  platform: "ios",
  environment: "production",
  app_version: "1.0",
  device_model: null,
  os_version: null,
  last_seen_at: AT,
  created_at: AT,
  ...fields,
});

describe("device decider", () => {
  it("registers a new token under a new id", () => {
    given(deviceDecider)().when(register("alice")).then(registered("alice", { device_id: `new-${AT}` }));
  });

  it("refreshes the same user's device, keeping its id and creation time", () => {
    given(deviceDecider)(registered("alice")).when(register("alice", LATER)).then(registered("alice", { last_seen_at: LATER }));
  });

  it("reassigns a token registered by another user, naming the previous owner", () => {
    given(deviceDecider)(registered("alice")).when(register("bob", LATER)).then(registered("bob", { previous_user_id: "alice", last_seen_at: LATER }));
  });

  it("removes only the owner's current device", () => {
    const remove = (userId: string, deviceId = "d1"): DeviceCommand => ({ type: "RemoveDevice", deviceId, userId, reason: "unregistered" });
    given(deviceDecider)(registered("alice")).when(remove("alice")).then({ type: "DeviceRemoved", v: 1, device_id: "d1", user_id: "alice", reason: "unregistered" });
    given(deviceDecider)(registered("alice")).when(remove("bob")).thenFails("not_found");
    given(deviceDecider)(registered("alice")).when(remove("alice", "d2")).thenFails("not_found");
    given(deviceDecider)(registered("alice"), { type: "DeviceRemoved", v: 1, device_id: "d1", user_id: "alice", reason: "deleted" }).when(remove("alice")).thenFails("not_found");
  });
});
