import { describe, expect, it } from "vitest";
import type { Explore, ExplorePoint } from "./api/get-explore";
import { DURABLE_SYMBOL, exploreFigure, mixNote, traceName } from "./figures";
import { heatmapOf } from "./heatmap-figure";
import { classifyDiff } from "./heatmap-diff";
import { parseHeatmapState } from "./url-state";

/** A point of `n` runs of 3 repetitions each, its median interval ±`half`. */
function point(x: string, median: number, opts: Partial<ExplorePoint> & { half?: number } = {}): ExplorePoint {
  const half = opts.half ?? median * 0.02;
  const n = opts.n ?? 3;
  return {
    x,
    n,
    repetitions: 3 * n,
    median,
    mean: median,
    min: median - half,
    max: median + half,
    p5: median - 2 * half,
    p95: median + 2 * half,
    flags: [],
    runs: ["r1"],
    median_low: median - half,
    median_high: median + half,
    mixes: {},
    durability: [],
    ...opts,
  };
}

describe("classifyDiff: coloured only beyond the noise, as Compare judges", () => {
  it("colours a 19 % drop whose interval excludes zero", () => {
    const v = classifyDiff(point("x", 3000), point("x", 2430))!;
    expect(v.kind).toBe("change");
    expect(v.pct).toBeCloseTo(-19, 6);
    // (2430 + 48.6 - (3000 - 60)) / 3000 and (2430 - 48.6 - (3000 + 60)) / 3000
    expect(v.note).toBe("interval -22.6 % to -15.4 %");
  });

  it("leaves a change whose intervals overlap neutral, saying why", () => {
    const v = classifyDiff(point("x", 1000, { half: 50 }), point("x", 1040, { half: 50 }))!;
    expect(v.kind).toBe("noise");
    expect(v.pct).toBeCloseTo(4, 6);
    expect(v.note).toBe("within noise: interval -6.0 % to +14.0 % includes zero");
  });

  it("leaves a clear change smaller than the minimum effect neutral", () => {
    const v = classifyDiff(point("x", 1000, { half: 1 }), point("x", 1030, { half: 1 }))!;
    expect(v.kind).toBe("noise");
    expect(v.note).toMatch(/^within noise: smaller than 5 %/);
  });

  it("judges no side with fewer than three repetitions: a single short run says nothing", () => {
    const single = point("x", 540, { n: 1, repetitions: 1, half: 0 });
    const v = classifyDiff(point("x", 3000), single)!;
    expect(v).toMatchObject({ kind: "few", note: "1 run, 1 repetition: too few to judge" });
    expect(v.pct).toBeCloseTo(-82, 6);
  });

  it("judges no busy or short-phase side", () => {
    const v = classifyDiff(point("x", 3000, { flags: ["busy"] }), point("x", 8100))!;
    expect(v.kind).toBe("flagged");
    expect(v.note).toBe("busy: its numbers cannot tell a change from noise");
    expect(classifyDiff(point("x", 3000), point("x", 8100, { flags: ["short_phase", "tentative_alert"] }))!.kind).toBe("flagged");
  });

  it("calls a cell whose sides differ in durability not comparable, never better or worse", () => {
    const tmpfs = point("x", 270000, { durability: ["memory_backed", "no_flush"] });
    const v = classifyDiff(point("x", 3000), tmpfs)!;
    expect(v.kind).toBe("incomparable");
    expect(v.note).toBe("not comparable (durability): a not memory-backed, b memory-backed, no flush");
    // Both memory-backed: comparable as usual.
    expect(classifyDiff(tmpfs, point("x", 200000, { durability: ["no_flush", "memory_backed"] }))!.kind).toBe("change");
  });

  it("falls back to p5..p95 when the server gives no interval (a sketched median)", () => {
    const a = point("x", 1000, { half: 10, median_low: null, median_high: null });
    const b = point("x", 1070, { half: 10, median_low: null, median_high: null });
    // p5..p95 are ±20: [1050, 1090] against [980, 1020] excludes zero.
    expect(classifyDiff(a, b)!.kind).toBe("change");
    expect(classifyDiff(a, { ...b, median: 1030, p5: 1010, p95: 1050 })!.kind).toBe("noise");
  });
});

function answer(version: string, points: Record<string, ExplorePoint[]>): Explore {
  return {
    workload: "create",
    metric: "create.ops_per_s",
    unit: "ops/s",
    direction: "higher",
    x: "fs_type",
    group: "agent",
    x_numeric: false,
    truncated: false,
    approximate: false,
    flag_reasons: { busy: "the machine was busy" },
    durability_reasons: {},
    split_by: [],
    pooled: [],
    note: version,
    traces: Object.entries(points).map(([group, ps]) => ({ group, points: ps, group_value: group, split: {}, mixes: {} })),
  };
}

describe("the heatmap's difference", () => {
  it("colours real changes and draws the rest grey with the reason on hover", () => {
    const a = answer("2.2.1", {
      "agent-a": [point("ext4", 3000), point("xfs", 3400), point("tmpfs", 21000)],
      "agent-b": [point("ext4", 3150, { n: 1, repetitions: 1 })],
    });
    const b = answer("2.2.2", {
      "agent-a": [point("ext4", 2430), point("xfs", 3420), point("tmpfs", 21000, { durability: ["memory_backed", "no_flush"] })],
      "agent-b": [point("ext4", 5355, { n: 1, repetitions: 1 })],
    });
    const state = parseHeatmapState(new URLSearchParams("workload=create&metric=create.ops_per_s&x=fs_type&y=agent&diff=fs_version&a=2.2.1&b=2.2.2"));
    const fig = heatmapOf([a, b], state, "light")!;
    expect(fig.data).toHaveLength(2);
    const [coloured, neutral] = fig.data as { x: string[]; y: string[]; z: (number | null)[][]; text: string[][]; customdata: string[][] }[];
    expect(coloured!.x).toEqual(["ext4", "tmpfs", "xfs"]);
    expect(coloured!.y).toEqual(["agent-a", "agent-b"]);
    // Only agent-a's ext4 drop is coloured.
    expect(coloured!.z[0]![0]).toBeCloseTo(-19, 6);
    expect(coloured!.z).toEqual([
      [coloured!.z[0]![0], null, null],
      [null, null, null],
    ]);
    expect(neutral!.z).toEqual([
      [null, 0, 0],
      [0, null, null],
    ]);
    expect(neutral!.text[0]).toEqual(["", "not comparable", "(+0.6%)"]);
    expect(neutral!.text[1]![0]).toBe("(+70.0%)");
    expect(neutral!.customdata[1]![0]).toBe("1 run, 1 repetition: too few to judge");
    expect(neutral!.customdata[0]![2]).toMatch(/^within noise/);
    expect(neutral!.customdata[0]![1]).toMatch(/^not comparable \(durability\)/);
  });

  it("plots values alone without judging them", () => {
    const a = answer("2.2.1", { "agent-a": [point("ext4", 3000)] });
    const state = parseHeatmapState(new URLSearchParams("workload=create&metric=create.ops_per_s&x=fs_type&y=agent"));
    const fig = heatmapOf([a], state, "light")!;
    expect(fig.data).toHaveLength(1);
    expect((fig.data[0] as { z: number[][] }).z).toEqual([[3000]]);
  });
});

describe("explore names its splits and mixes and marks memory-backed points", () => {
  it("names a split trace, notes what its points mix, draws durability as diamonds", () => {
    const tmpfs = point("2.2.2", 21000, { durability: ["memory_backed", "no_flush"], mixes: { "label.study": ["a", "b"] } });
    const disk = point("2.2.2", 2430, { mixes: { target: ["/mnt/ext4", "/mnt/xfs"], "param.size": ["4k", null] } });
    const data = answer("x", {});
    data.x = "fs_version";
    data.traces = [
      {
        group: "agent-a · fsync=file · memory_backed=true",
        group_value: "agent-a",
        split: { "param.fsync": "file", memory_backed: "true" },
        mixes: {},
        points: [tmpfs],
      },
      {
        group: "agent-a · fsync=file · memory_backed=false",
        group_value: "agent-a",
        split: { "param.fsync": "file", memory_backed: "false" },
        mixes: {},
        points: [disk],
      },
    ];
    expect(traceName(data.traces[0]!, data)).toBe("agent=agent-a · fsync=file · memory_backed=true");
    expect(mixNote(disk)).toBe("<br>mixes target: /mnt/ext4, /mnt/xfs<br>mixes size: 4k, not set");
    // A size stored in bytes is named as people write it.
    expect(mixNote({ ...disk, mixes: { "param.segsize": ["131072", "1048576"] } })).toBe("<br>mixes segsize: 128 KiB, 1 MiB");
    const fig = exploreFigure(data, { view: "lines", logx: false, logy: false, theme: "light" });
    const [first, second] = fig.data as { name: string; marker: { symbol: string[] }; customdata: string[][] }[];
    expect(first!.name).toBe("agent=agent-a · fsync=file · memory_backed=true");
    expect(first!.marker.symbol).toEqual([DURABLE_SYMBOL]);
    expect(second!.marker.symbol).toEqual(["circle"]);
    expect(first!.customdata[0]![8]).toBe("<br>◆ tmpfs: memory-backed, fsync does not reach stable storage");
    expect(second!.customdata[0]![8]).toBe("");
    expect(second!.customdata[0]![9]).toBe(mixNote(disk));
  });
});

describe("split and pool in the URL", () => {
  it("reads, writes and asks the API for them, and leaves plain links alone", async () => {
    const { exploreQuery, exploreSearch, parseExploreState } = await import("./url-state");
    const state = parseExploreState(
      new URLSearchParams("workload=create&metric=create.ops_per_s&x=fs_version&group=agent&split=label.study,none&pool=param.fsync"),
    );
    expect(state.split).toEqual(["label.study", "none"]);
    expect(state.pool).toEqual(["param.fsync"]);
    expect(exploreSearch(state).toString()).toBe(
      "workload=create&metric=create.ops_per_s&x=fs_version&group=agent&split=label.study&split=none&pool=param.fsync",
    );
    expect(exploreQuery(state)).toMatchObject({ split: ["label.study", "none"], pool: ["param.fsync"] });
    const plain = parseExploreState(new URLSearchParams("workload=create&metric=m"));
    expect("split" in plain || "pool" in plain).toBe(false);
    expect(exploreQuery(plain)).not.toHaveProperty("split");
  });
});
