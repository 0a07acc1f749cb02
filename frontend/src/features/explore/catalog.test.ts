import { describe, expect, it } from "vitest";
import { buildCatalog, type ApiCatalog } from "./catalog";

const api: ApiCatalog = {
  dimensions: ["time", "agent", "fs_type", "fsync_policy"],
  workloads: [
    {
      name: "seqio",
      runs: 3,
      metrics: [{ name: "write.mb_per_s", unit: "MB/s", direction: "higher" }],
      parameters: {},
      labels: {},
    },
    {
      name: "partialread",
      runs: 10,
      metrics: [
        { name: "read.seconds", unit: "s", direction: "lower" },
        { name: "read.mb_per_s", unit: "MB/s", direction: "higher" },
      ],
      parameters: { k: [1, 3, 10], segsize: [131072] },
      labels: { version: ["1.7.1", "1.8.2"] },
    },
  ],
};

describe("buildCatalog", () => {
  it("lists workloads, the chosen workload's metrics and its dimensions with values", () => {
    const cat = buildCatalog(api, "partialread");
    expect(cat.workloads).toEqual(["partialread", "seqio"]);
    expect(cat.metrics.map((m) => m.name)).toEqual(["read.mb_per_s", "read.seconds"]);
    const byName = Object.fromEntries(cat.dimensions.map((d) => [d.name, d]));
    expect(cat.dimensions[0]).toMatchObject({ name: "time", kind: "time" });
    expect(byName.k).toMatchObject({ kind: "parameter", values: ["1", "3", "10"] });
    expect(byName.version).toMatchObject({ kind: "label", values: ["1.7.1", "1.8.2"] });
    expect(byName.fsync_policy).toMatchObject({ kind: "built-in", values: [] });
    expect(cat.dimensions.filter((d) => d.name === "time")).toHaveLength(1);
  });

  it("has no metrics or workload dimensions before a workload is chosen", () => {
    const cat = buildCatalog(api, "");
    expect(cat.metrics).toEqual([]);
    expect(cat.dimensions.every((d) => d.kind === "time" || d.kind === "built-in")).toBe(true);
  });
});
