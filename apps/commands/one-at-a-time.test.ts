import { describe, expect, it } from "vitest";
import { OneAtATime } from "./one-at-a-time.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("OneAtATime", () => {
  it("runs the writes of one key in turn, other keys and other instances alongside, and keeps no idle key", async () => {
    const queues = new OneAtATime();
    const other = new OneAtATime();
    const order: string[] = [];
    let release!: () => void;
    const first = queues.run("k", async () => {
      order.push("first starts");
      await new Promise<void>((resolve) => (release = resolve));
      order.push("first ends");
    });
    const second = queues.run("k", async () => void order.push("second"));
    await queues.run("other key", async () => void order.push("other key"));
    await other.run("k", async () => void order.push("other instance"));
    await tick();
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first starts", "other key", "other instance", "first ends", "second"]);
    expect(queues.size).toBe(0);
  });

  it("goes on after a failed write and hands its error to its caller only", async () => {
    const queues = new OneAtATime();
    const failed = queues.run("k", async () => {
      throw new Error("boom");
    });
    const next = queues.run("k", async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ran");
  });
});
