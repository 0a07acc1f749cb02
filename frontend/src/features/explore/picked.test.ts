import { describe, expect, it } from "vitest";
import type { Explore } from "./api/get-explore";
import { exploreFigure } from "./figures";
import { pickPoint } from "./picked";

function point(x: number, n: number, runs: string[]) {
  return { x, n, repetitions: 3 * n, median: 10, mean: 10, min: 8, max: 12, p5: 9, p95: 11, flags: [], runs };
}

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
  flag_reasons: {},
  traces: [
    { group: "1.7.1", points: [point(1, 1, ["a1"]), point(2, 40, ["b1", "b2", "b3"])] },
    { group: null, points: [point(4, 2, ["c1", "c2"])] },
  ],
};

/** A click as plotly reports it: the customdata the figure put on that point. */
function click(curveNumber: number, pointNumber: number) {
  const trace = exploreFigure(data, { view: "lines", logx: false, logy: false, theme: "light" }).data[curveNumber] as { customdata: unknown[] };
  return { customdata: trace.customdata[pointNumber], curveNumber, pointNumber };
}

describe("pickPoint", () => {
  it("picks the runs the figure put on the clicked point, with its group, x and run count", () => {
    expect(pickPoint(data, click(0, 1))).toEqual({ group: "version=1.7.1", x: 2, runs: ["b1", "b2", "b3"], n: 40 });
    expect(pickPoint(data, click(0, 0))).toEqual({ group: "version=1.7.1", x: 1, runs: ["a1"], n: 1 });
    expect(pickPoint(data, click(1, 0))).toEqual({ group: "version not set", x: 4, runs: ["c1", "c2"], n: 2 });
  });

  it("falls back to the one run of a point without a run list", () => {
    expect(pickPoint(undefined, { customdata: ["r9"], curveNumber: 0, pointNumber: 0 })).toEqual({ group: "all runs", x: undefined, runs: ["r9"], n: 1 });
    expect(pickPoint(data, { customdata: "nothing", curveNumber: 5, pointNumber: 0 }).runs).toEqual([]);
  });
});
