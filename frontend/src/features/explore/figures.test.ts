import { describe, expect, it } from "vitest";
import type { Explore } from "./api/get-explore";
import { categoryOrder, exploreFigure, groupName, pointNote } from "./figures";
import { diffGrid, heatmapFigure, heatmapOf, toGrid } from "./heatmap-figure";
import { parseHeatmapState } from "./url-state";

function point(x: number | string | null, median: number, n = 2, runs = ["r1", "r2"], flags: string[] = []) {
  return { x, n, repetitions: 3 * n, median, mean: median, min: median - 2, max: median + 2, p5: median - 1, p95: median + 1, flags, runs };
}

const reasons = { short_phase: "a timed phase lasted under 0.5 s", busy: "the machine was busy" };

const data: Explore = {
  approximate: false,
  workload: "partialread",
  metric: "read.mb_per_s",
  unit: "MB/s",
  direction: "higher",
  x: "k",
  group: "version",
  x_numeric: true,
  truncated: false,
  flag_reasons: reasons,
  traces: [
    { group: "1.7.1", points: [point(1, 10), point(2, 8)] },
    { group: "trunk", points: [point(1, 15), point(2, 12)] },
  ],
};

describe("exploreFigure", () => {
  it("draws one line per group with asymmetric p5..p95 error bars", () => {
    const fig = exploreFigure(data, { view: "lines", logx: false, logy: false, theme: "light" });
    expect(fig.data).toHaveLength(2);
    const [first] = fig.data;
    expect(first).toMatchObject({ type: "scatter", mode: "lines+markers", name: "version=1.7.1", x: [1, 2], y: [10, 8] });
    expect(first!.error_y).toMatchObject({ array: [1, 1], arrayminus: [1, 1] });
    expect(fig.layout.xaxis).toMatchObject({ type: "linear", title: { text: "k" } });
    expect(fig.layout.yaxis).toMatchObject({ title: { text: "read.mb_per_s (MB/s), higher is better" } });
  });

  it("draws boxes from the summaries, and log axes when asked", () => {
    const fig = exploreFigure(data, { view: "box", logx: true, logy: true, theme: "dark" });
    expect(fig.data[0]).toMatchObject({ type: "box", q1: [9, 7], median: [10, 8], q3: [11, 9], lowerfence: [8, 6], upperfence: [12, 10] });
    expect(fig.layout.xaxis).toMatchObject({ type: "log" });
    expect(fig.layout.yaxis).toMatchObject({ type: "log" });
  });

  it("uses categories for non-numeric x and dates for time", () => {
    expect(exploreFigure({ ...data, x: "fs_type", x_numeric: false }, { view: "lines", logx: true, logy: false, theme: "light" }).layout.xaxis).toMatchObject({
      type: "category",
    });
    const time = exploreFigure({ ...data, x: "time", x_numeric: false }, { view: "lines", logx: false, logy: false, theme: "light" });
    expect(time.layout.xaxis).toMatchObject({ type: "date" });
    expect(time.data[0]).toMatchObject({ mode: "markers" });
  });

  it("puts the runs behind each point in customdata for the click", () => {
    const fig = exploreFigure(data, { view: "lines", logx: false, logy: false, theme: "light" });
    const custom = fig.data[0]!.customdata as unknown[][];
    expect(custom[0]![4]).toEqual(["r1", "r2"]);
    expect(pointNote(point(1, 5, 1, ["abcdef0123"]), false)).toContain("run abcdef01: 3 repetitions");
    expect(pointNote(point(1, 5, 4), false)).toContain("4 runs, 12 repetitions");
  });

  it("draws a flagged point hollow and gives its reasons on hover", () => {
    const flagged: Explore = { ...data, traces: [{ group: "1.7.1", points: [point(1, 10), point(2, 8, 2, ["r"], ["short_phase", "busy"])] }] };
    const trace = exploreFigure(flagged, { view: "lines", logx: false, logy: false, theme: "light" }).data[0]!;
    expect(trace.marker).toMatchObject({ symbol: ["circle", "circle-open"], size: [7, 11] });
    const custom = trace.customdata as unknown[][];
    expect(custom[0]![6]).toBe("");
    expect(custom[1]![6]).toBe("<br>⚠ short phase: a timed phase lasted under 0.5 s<br>⚠ busy: the machine was busy");
  });

  it("names groups readably", () => {
    expect(groupName("trunk", "version")).toBe("version=trunk");
    expect(groupName(null, "version")).toBe("version not set");
    expect(groupName(null, null)).toBe("all runs");
  });
});

describe("order and units", () => {
  const lines = { view: "lines", logx: false, logy: false, theme: "light" } as const;
  const versions: Explore = {
    ...data,
    x: "version",
    group: "agent",
    x_numeric: false,
    traces: [
      // As the server answers: each trace in natural order, not every version in each.
      { group: "host-a", points: [point("2.1.10", 5), point("2.2.0", 6), point("trunk", 7)] },
      { group: "host-b", points: [point("2.1.9", 1), point("2.1.11", 2), point("2.2.0-rc1", 3), point("2.2.0", 4)] },
    ],
  };

  it("gives plotly the category order and joins the points along it", () => {
    const fig = exploreFigure(versions, lines);
    const expected = ["2.1.9", "2.1.10", "2.1.11", "2.2.0-rc1", "2.2.0", "trunk"];
    expect(fig.layout.xaxis).toMatchObject({ type: "category", categoryorder: "array", categoryarray: expected });
    expect(fig.data.map((t) => t.mode)).toEqual(["lines+markers", "lines+markers"]);
    expect(fig.data[1]).toMatchObject({ x: ["2.1.9", "2.1.11", "2.2.0-rc1", "2.2.0"], y: [1, 2, 3, 4] });
    // Every line runs along the axis: its points' places on it only increase.
    for (const trace of fig.data) {
      const places = (trace.x as string[]).map((x) => expected.indexOf(x));
      expect(places).toEqual([...places].sort((a, b) => a - b));
      expect(places).not.toContain(-1);
    }
    expect(exploreFigure(versions, { ...lines, view: "points" }).data[0]).toMatchObject({ mode: "markers" });
  });

  it("keeps an order the server was asked for (trunk first)", () => {
    const trunkFirst = {
      ...versions,
      traces: [
        { group: "a", points: [point("trunk", 1), point("2.1.9", 2)] },
        { group: "b", points: [point("trunk", 1), point("2.1.10", 2), point("2.2.0", 3)] },
      ],
    };
    expect(categoryOrder(trunkFirst)).toEqual(["trunk", "2.1.9", "2.1.10", "2.2.0"]);
  });

  it("writes sizes as people do on the ticks, in the hover and in the legend", () => {
    const sizes: Explore = {
      ...data,
      x: "segsize",
      group: "blocksize",
      traces: [{ group: "1048576", points: [point(4096, 1), point(131072, 2), point(4194304, 3)] }],
    };
    const fig = exploreFigure(sizes, lines);
    expect(fig.layout.xaxis).toMatchObject({ type: "linear", tickmode: "array", tickvals: [4096, 131072, 4194304], ticktext: ["4 KiB", "128 KiB", "4 MiB"] });
    expect(fig.data[0]!.name).toBe("blocksize=1 MiB");
    expect((fig.data[0]!.customdata as unknown[][]).map((c) => c[7])).toEqual(["4 KiB", "128 KiB", "4 MiB"]);
    expect(fig.data[0]!.hovertemplate).toContain("segsize=%{customdata[7]}");
    // Other dimensions keep plotly's own ticks.
    expect(exploreFigure(data, lines).layout.xaxis).not.toHaveProperty("ticktext");
  });

  it("orders the heatmap's axes naturally and writes its sizes", () => {
    const grid = toGrid({
      ...data,
      x: "version",
      group: "segsize",
      traces: [
        { group: "131072", points: [point("2.1.10", 1), point("2.1.9", 2)] },
        { group: "4096", points: [point("trunk", 3)] },
      ],
    });
    expect(grid.xs).toEqual(["2.1.9", "2.1.10", "trunk"]);
    expect(grid.ys).toEqual(["4096", "131072"]);
    const fig = heatmapFigure(grid, { theme: "light", x: "version", y: "segsize", title: "t", diff: false });
    expect(fig.layout.xaxis).toMatchObject({ categoryorder: "array", categoryarray: ["2.1.9", "2.1.10", "trunk"] });
    expect(fig.layout.yaxis).toMatchObject({ categoryarray: ["4096", "131072"], ticktext: ["4 KiB", "128 KiB"] });
    expect(fig.data[0]!.hovertext).toEqual([
      ["version=2.1.9<br>segsize=4 KiB", "version=2.1.10<br>segsize=4 KiB", "version=trunk<br>segsize=4 KiB"],
      ["version=2.1.9<br>segsize=128 KiB", "version=2.1.10<br>segsize=128 KiB", "version=trunk<br>segsize=128 KiB"],
    ]);
  });
});

describe("heatmap grids", () => {
  it("turns x by group into a sorted grid and diffs two of them in percent", () => {
    const a = toGrid({
      ...data,
      traces: [
        { group: "131072", points: [point(2, 10), point(1, 20)] },
        { group: "65536", points: [point(1, 10)] },
      ],
    });
    expect(a.xs).toEqual([1, 2]);
    expect(a.ys).toEqual(["65536", "131072"]);
    expect(a.z).toEqual([
      [10, null],
      [20, 10],
    ]);
    const b = toGrid({ ...data, traces: [{ group: "131072", points: [point(1, 30), point(2, 5), point(3, 1)] }] });
    const d = diffGrid(a, b);
    expect(d.xs).toEqual([1, 2, 3]);
    expect(d.flags[1]).toEqual([[], [], []]);
    expect(d.z).toEqual([
      [null, null, null],
      [50, -50, null],
    ]);
  });

  it("centres a difference on zero with blue for better whichever way the metric points", () => {
    const grid = { xs: [1], ys: ["a"], z: [[-20]], n: [[null]], flags: [[[]]] };
    const higher = heatmapFigure(grid, { theme: "light", x: "k", y: "s", title: "t", diff: true, direction: "higher" }).data[0]!;
    expect(higher).toMatchObject({ zmid: 0, zmin: -20, zmax: 20 });
    const scaleH = higher.colorscale as [number, string][];
    const lower = heatmapFigure(grid, { theme: "light", x: "k", y: "s", title: "t", diff: true, direction: "lower" }).data[0]!;
    const scaleL = lower.colorscale as [number, string][];
    expect(scaleH[scaleH.length - 1]![1]).toBe("#2166ac");
    expect(scaleL[0]![1]).toBe("#2166ac");
  });

  it("marks a flagged cell and carries the flags of either side into a difference", () => {
    const a = toGrid({ ...data, traces: [{ group: "x", points: [point(1, 10, 2, ["r"], ["busy"]), point(2, 10)] }] });
    const b = toGrid({ ...data, traces: [{ group: "x", points: [point(1, 11), point(2, 11, 2, ["r"], ["short_phase"])] }] });
    expect(diffGrid(a, b).flags).toEqual([[["busy"], ["short_phase"]]]);
    const cell = heatmapFigure(a, { theme: "light", x: "k", y: "s", title: "t", diff: false, reasons }).data[0]!;
    expect(cell.text).toEqual([[" ⚠", ""]]);
    expect(cell.customdata).toEqual([["<br>⚠ busy: the machine was busy", ""]]);
  });

  it("draws the heatmap of its answers: values for one, b against a in percent for two, nothing while one is missing", () => {
    const state = parseHeatmapState(new URLSearchParams("workload=w&metric=m&x=k&y=segsize&diff=version&a=1.7&b=2.0"));
    const a = { ...data, traces: [{ group: "4096", points: [point(1, 40), point(2, 50)] }] };
    const b = { ...data, traces: [{ group: "4096", points: [point(1, 30), point(2, 60)] }] };
    const diff = heatmapOf([a, b], state, "light")!.data[0]!;
    // the oracle: (b - a) / |a| * 100 cell by cell
    expect(diff.z).toEqual([[((30 - 40) / 40) * 100, ((60 - 50) / 50) * 100]]);
    expect(diff.colorbar).toEqual({ title: { text: "2.0 vs 1.7 (%), blue = better", side: "right" } });
    const one = heatmapOf([a], state, "light")!.data[0]!;
    expect(one.z).toEqual([[40, 50]]);
    expect(one.colorbar).toEqual({ title: { text: "median MB/s", side: "right" } });
    expect(heatmapOf([a, undefined], state, "light")).toBeNull();
    expect(heatmapOf([], state, "light")).toBeNull();
    expect(heatmapOf([{ ...data, traces: [] }], state, "light")).toBeNull();
  });
});
