import { describe, expect, it } from "vitest";
import { partitionLockName, partitionOfSubject } from "./fact-partitions.ts";

describe("partitionOfSubject", () => {
  it("puts every subject of one project in the same partition: batches of each app and identity facts", () => {
    const partition = partitionOfSubject("ns.i.project-1.app-1", 4);
    expect(partitionOfSubject("ns.i.project-1.app-2", 4)).toBe(partition);
    expect(partitionOfSubject("ns.i.project-1.u.0123abcd", 4)).toBe(partition);
    expect(partitionOfSubject("other_ns.i.project-1.app-1", 4)).toBe(partition);
  });

  it("is fixed: the same partition in every process and version", () => {
    expect([1, 2, 3, 4, 8].map((count) => partitionOfSubject("ns.i.0f8b7e1c-5d1f-4c2e-9a66-3f2b1c0d9e8a.app", count))).toMatchInlineSnapshot(`
      [
        0,
        1,
        2,
        1,
        5,
      ]
    `);
  });

  it("spreads random project ids evenly", () => {
    const counts = [0, 0, 0, 0];
    for (let index = 0; index < 4_000; index += 1) counts[partitionOfSubject(`ns.i.${crypto.randomUUID()}.app`, 4)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it("has one partition when not split", () => {
    expect(partitionOfSubject("ns.i.p.a", 1)).toBe(0);
  });
});

describe("partitionLockName", () => {
  it("keeps the unsplit read model's lock name, so an instance of the previous version still excludes this one", () => {
    expect(partitionLockName("events", 0)).toBe("projector:events");
    expect(partitionLockName("events", 3)).toBe("projector:events:3");
  });
});
