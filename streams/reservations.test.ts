import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append } from "./append.ts";
import { connectLog, type Log } from "./connection.ts";
import { ensureStreams } from "./ensure.ts";
import { lastSequenceOn } from "./last-sequence.ts";
import { removeStreams } from "./remove.ts";
import { ABANDONED_AFTER_MS, reservationKey, reservationOwner, reserve, takeOverAbandoned } from "./reservations.ts";

/** Against the local NATS server, in a namespace of its own. */
let log: Log;

beforeAll(async () => {
  log = await connectLog([process.env.NATS_URL ?? "nats://127.0.0.1:4222"], `r${randomBytes(5).toString("hex")}`, pino({ level: "silent" }));
  await ensureStreams(log);
});
afterAll(async () => {
  await removeStreams(log);
  await log.close();
});

const later = () => Date.now() + ABANDONED_AFTER_MS + 1_000;
const userFacts = async (owner: string) => (await lastSequenceOn(log, log.names.stream("DOMAIN"), log.names.aggregateSubject("user", owner))) > 0;

describe("abandoned reservations", () => {
  it("are taken over once old enough when their owner has no fact", async () => {
    const key = reservationKey("user-email", `${randomBytes(4).toString("hex")}@example.test`);
    expect(await reserve(log, key, "orphan")).toEqual({ reserved: true });
    expect(await takeOverAbandoned(log, key, "fresh", userFacts)).toBe(false); // too young
    const [first, second] = await Promise.all([
      takeOverAbandoned(log, key, "fresh-a", userFacts, later()),
      takeOverAbandoned(log, key, "fresh-b", userFacts, later()),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await reservationOwner(log, key)).toBe(first ? "fresh-a" : "fresh-b");
  });

  it("stay with an owner whose fact is on the stream", async () => {
    const key = reservationKey("user-email", `${randomBytes(4).toString("hex")}@example.test`);
    const owner = "5e0f3b1c-0000-4000-8000-000000000001";
    await reserve(log, key, owner);
    await append(log, log.names.aggregateSubject("user", owner), "{}", { msgId: randomBytes(8).toString("hex") });
    expect(await takeOverAbandoned(log, key, "fresh", userFacts, later())).toBe(false);
    expect(await reservationOwner(log, key)).toBe(owner);
  });
});
