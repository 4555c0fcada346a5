import { describe, expect, it } from "vitest";
import { rollupSource } from "./dimensions.ts";

const version = { dimension: "app_version", value: "1.2.0" } as const;
const device = { dimension: "device_model", value: "iPhone15,2" } as const;

describe("rollupSource", () => {
  it("answers from the whole-hour rollups without filters, whatever the time or app grouping", () => {
    expect(rollupSource([], false, undefined)).toEqual({ kind: "all" });
    expect(rollupSource([], false, "time:day")).toEqual({ kind: "all" });
    expect(rollupSource([], false, "app_id")).toEqual({ kind: "all" });
  });

  it("answers one dimension's filter or grouping from that dimension's rollups", () => {
    expect(rollupSource([version], false, "time:hour")).toEqual({ kind: "dimension", dimension: "app_version", value: "1.2.0" });
    expect(rollupSource([], false, "os_version")).toEqual({ kind: "dimension", dimension: "os_version" });
    expect(rollupSource([version], false, "app_version")).toEqual({ kind: "dimension", dimension: "app_version", value: "1.2.0" });
  });

  it("leaves two dimensions at once, and user filters, to the events", () => {
    expect(rollupSource([version, device], false, undefined)).toBeNull();
    expect(rollupSource([version], false, "device_model")).toBeNull();
    expect(rollupSource([], true, undefined)).toBeNull();
  });
});
