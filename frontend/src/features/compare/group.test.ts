import { describe, expect, it } from "vitest";
import type { Explore } from "../explore/api/get-explore";
import { durabilityDifferences, groupQueries, groupRows, parseGroupCompare } from "./group";

const p = (x: string | null, median: number) => ({ x, n: 3, median, mean: median, min: median, max: median, p5: median, p95: median, runs: [] });
const explore = (metric: string, direction: string, points: ReturnType<typeof p>[], group: string | null = null): Explore => ({
  workload: "w", metric, unit: "s", direction, x: "version", group, x_numeric: false, truncated: false, traces: [{ group, points }],
});

describe("group compare", () => {
  it("reads its state and asks one explore per metric for the two values", () => {
    const state = parseGroupCompare(new URLSearchParams("workload=w&by=version&a=1&b=2&filter=host:x&filter=version:9"))!;
    expect(groupQueries(state, ["m"])).toEqual([{ workload: "w", metric: "m", x: "version", filter: ["host:x", "version:1", "version:2"] }]);
    expect(parseGroupCompare(new URLSearchParams("workload=w"))).toBeNull();
  });

  it("gives each metric's change from a to b, better by the metric's direction", () => {
    const rows = groupRows([explore("t.seconds", "lower", [p("1", 10), p("2", 5)]), explore("rate", "higher", [p("1", 10), p("2", 5)]), explore("gone", "higher", [])], "1", "2");
    expect(rows.map((r) => [r.metric, r.diffPct, r.better])).toEqual([
      ["rate", -50, false],
      ["t.seconds", -50, true],
    ]);
  });

  it("finds durability facts that differ between the groups", () => {
    const fsync: Explore = { ...explore("m", "higher", []), x: "fsync_policy", traces: [{ group: "1", points: [p("file", 1)] }, { group: "2", points: [p("none", 1)] }] };
    const cache: Explore = { ...explore("m", "higher", []), x: "write_cache", traces: [{ group: "1", points: [p(null, 1)] }, { group: "2", points: [p(null, 1)] }] };
    expect(durabilityDifferences({ fsync_policy: fsync, write_cache: cache }, "1", "2")).toEqual([{ fact: "fsync_policy", a: ["file"], b: ["none"] }]);
  });
});
