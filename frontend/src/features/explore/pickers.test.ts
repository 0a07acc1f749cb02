import { describe, expect, it } from "vitest";
import { buildCatalog, type ApiCatalog } from "./catalog";
import { pickersOf } from "./pickers";

const api: ApiCatalog = {
  dimensions: ["time", "agent", "fs_type"],
  workloads: [
    {
      name: "seqio",
      runs: 3,
      metrics: [{ name: "write.mb_per_s", unit: "MB/s", direction: "higher" }],
      parameters: { size: [1048576], segsize: [4096] },
      labels: { version: ["6.10", "6.2"] },
      agents: ["lab-10", "lab-2"],
    },
    {
      name: "partialread",
      runs: 10,
      metrics: [
        { name: "read.seconds", unit: "s", direction: "lower" },
        { name: "read.mb_per_s", unit: "MB/s", direction: "higher" },
      ],
      parameters: { k: [1, 3, 10], segsize: [65536, 131072], version: [2] },
      labels: { version: ["1.7.1", "1.8.2"], grid: ["a"] },
      agents: ["lab-2", "lab-3"],
    },
  ],
};

const values = (p: ReturnType<typeof pickersOf>, name: string, kind?: "parameter" | "label") => p.values(name, kind).map((c) => c.value);

describe("pickersOf", () => {
  it("offers one workload's metrics, parameters, labels and values", () => {
    const p = pickersOf(api, "partialread");
    expect(p.workloads.map((c) => c.value)).toEqual(["partialread", "seqio"]);
    expect(p.metrics.map((c) => c.value)).toEqual(["read.mb_per_s", "read.seconds"]);
    expect(p.agents.map((c) => c.value)).toEqual(["lab-2", "lab-3"]);
    expect(p.parameters.map((c) => c.value)).toEqual(["k", "segsize", "version"]);
    expect(p.labels.map((c) => c.value)).toEqual(["grid", "version"]);
    expect(values(p, "k")).toEqual(["1", "3", "10"]);
    expect(p.values("segsize")).toEqual([
      { value: "65536", label: "64 KiB" },
      { value: "131072", label: "128 KiB" },
    ]);
    // a name that is both: the kind asked for, or the prefix
    expect(values(p, "version", "label")).toEqual(["1.7.1", "1.8.2"]);
    expect(values(p, "label.version")).toEqual(["1.7.1", "1.8.2"]);
    expect(values(p, "param.version")).toEqual(["2"]);
    expect(values(p, "env.KEY")).toEqual([]);
  });

  it("offers every workload's when none is chosen, values merged once each in natural order", () => {
    const p = pickersOf(api, "");
    expect(p.metrics.map((c) => c.value)).toEqual(["read.mb_per_s", "read.seconds", "write.mb_per_s"]);
    expect(p.agents.map((c) => c.value)).toEqual(["lab-2", "lab-3", "lab-10"]);
    expect(p.parameters.map((c) => c.value)).toEqual(["k", "segsize", "size", "version"]);
    expect(values(p, "segsize")).toEqual(["4096", "65536", "131072"]);
    expect(values(p, "version", "label")).toEqual(["1.7.1", "1.8.2", "6.2", "6.10"]);
  });

  it("offers nothing of a workload not stored", () => {
    const p = pickersOf(api, "nope");
    expect([p.metrics, p.parameters, p.labels, p.dimensions]).toEqual([[], [], [], []]);
  });
});

describe("the built-in agent", () => {
  it("has the workload's agents as its values, in natural order", () => {
    const agent = (w: string) => buildCatalog(api, w).dimensions.find((d) => d.name === "agent");
    expect(agent("seqio")).toEqual({ name: "agent", kind: "built-in", values: ["lab-2", "lab-10"] });
    expect(agent("partialread")?.values).toEqual(["lab-2", "lab-3"]);
    expect(buildCatalog(api, "seqio").dimensions.find((d) => d.name === "fs_type")?.values).toEqual([]);
  });
});
