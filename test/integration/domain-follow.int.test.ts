import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import { connectLog, type Log } from "../../streams/connection.ts";
import { ensureStreams } from "../../streams/ensure.ts";
import { followDomain, type DomainListener } from "../../streams/follow.ts";
import { NatsServer } from "../support/nats-server.ts";
import { waitUntil } from "../support/processes.ts";
import { appendFacts } from "../support/streams.ts";

/**
 * streams/follow.ts against a nats-server this file owns: the follower delivers only facts
 * appended after it started, reports an unreadable fact, and rides out a NATS crash: `lost` while
 * the server is down, `following` once it reopened, and the facts after that are delivered.
 * The API's key cache stops caching between the two (apps/api/auth/revocation-follower.ts).
 */

let nats: NatsServer;
let log: Log;
const logger = pino({ level: "silent" });

beforeAll(async () => {
  nats = await NatsServer.start();
  log = await connectLog([nats.url], `t${randomBytes(5).toString("hex")}`, logger);
  await ensureStreams(log);
});
afterAll(async () => {
  await log?.close();
  await nats?.dispose();
});

const renamed = (teamId: string, name: string) => [{ type: "TeamRenamed" as const, v: 1 as const, team_id: teamId, name, previous_name: "before" }];

function recorder() {
  const facts: { seq: number; name: string }[] = [];
  const unreadable: number[] = [];
  const states: string[] = [];
  const listener: DomainListener = {
    fact: (envelope, seq) => {
      const event = envelope.events[0];
      facts.push({ seq, name: event?.type === "TeamRenamed" ? event.name : "?" });
    },
    unreadable: (seq) => void unreadable.push(seq),
    following: () => void states.push("following"),
    lost: () => void states.push("lost"),
  };
  return { facts, unreadable, states, listener };
}

describe("followDomain", () => {
  it("delivers the facts appended after it started, in order, and tells apart the ones it cannot read", async () => {
    const teamId = newId();
    const subject = log.names.aggregateSubject("team", teamId);
    await appendFacts(log, subject, renamed(teamId, "before the follower"));
    const { facts, unreadable, states, listener } = recorder();
    const following = await followDomain(log, logger, listener);
    try {
      expect(states).toEqual(["following"]);
      const first = await appendFacts(log, subject, renamed(teamId, "first"));
      const garbage = (await append(log, subject, "not json", { msgId: newId() })).seq;
      const second = await appendFacts(log, subject, renamed(teamId, "second"));
      await waitUntil("both facts delivered", () => facts.length >= 2, 5_000, 10);
      expect(facts).toEqual([
        { seq: first, name: "first" },
        { seq: second, name: "second" },
      ]);
      expect(unreadable).toEqual([garbage]);
    } finally {
      await following.stop();
    }
  });

  it("reports the stream lost while NATS is down, following again once it is back, and then delivers new facts", async () => {
    const teamId = newId();
    const subject = log.names.aggregateSubject("team", teamId);
    const { facts, states, listener } = recorder();
    const following = await followDomain(log, logger, listener);
    try {
      const before = await appendFacts(log, subject, renamed(teamId, "before the crash"));
      await waitUntil("the fact before the crash", () => facts.length === 1, 5_000, 10);
      await nats.stop("SIGKILL");
      await waitUntil("the follower to report the loss", () => states.at(-1) === "lost", 10_000, 10);
      await nats.restart();
      await waitUntil("the follower to follow again", () => states.at(-1) === "following", 20_000, 25);
      const after = await appendFacts(log, subject, renamed(teamId, "after the restart"));
      await waitUntil("the fact after the restart", () => facts.length === 2, 5_000, 10);
      expect(facts).toEqual([
        { seq: before, name: "before the crash" },
        { seq: after, name: "after the restart" },
      ]);
      expect(states).toEqual(["following", "lost", "following"]);
    } finally {
      await following.stop();
    }
  });
});
