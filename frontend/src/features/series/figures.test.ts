import { describe, expect, it } from "vitest";
import { DENSE_POINTS, forWebGL } from "../../components/charts/dense";
import { envelope } from "../../components/charts/spread-band";
import type { SeriesPoints } from "./api/get-series-points";
import { seriesFigure } from "./figures";

// A series of n points whose medians and spreads vary point by point: some p5/p95 equal to their
// median, some on the wrong side of it, versions changing twice.
function points(n: number, samples = false): SeriesPoints {
  const t = Array.from({ length: n }, (_, i) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString());
  const value = t.map((_, i) => 1000 + ((i * 37) % 101) - (i % 7) * 3.5);
  return {
    series: {
      id: 7,
      workload: "w",
      metric: "create.ops_per_s",
      unit: "ops/s",
      direction: "higher",
      agent: "a",
      target: "/t",
      parameters: {},
      labels: {},
      points: n,
      last_at: t[n - 1] ?? null,
    },
    older: false,
    t,
    value,
    run: t.map((_, i) => `run-${i}`),
    p5: value.map((v, i) => (i % 11 === 3 ? v : i % 13 === 5 ? v + 2 : v - 1 - (i % 5))),
    p95: value.map((v, i) => (i % 17 === 4 ? v : i % 19 === 6 ? v - 3 : v + 2 + (i % 9) * 0.25)),
    versions: [
      { at: 0, labels: { fs_version: "2.0" } },
      { at: Math.floor(n / 3), labels: { fs_version: "2.1" } },
      { at: Math.floor((2 * n) / 3), labels: { fs_version: "2.1", kernel: "6.8" } },
    ],
    ...(samples ? { samples: value.map((v, i) => [v - 1, v, v + (i % 3)]) } : {}),
  };
}

type Trace = {
  name: string;
  type: string;
  mode: string;
  x: (number | string)[];
  y: number[];
  fill?: string;
  hoverinfo?: string;
  showlegend?: boolean;
  customdata?: string[];
  text?: string[];
  error_y?: unknown;
  marker?: unknown;
};

describe("a series' figure", () => {
  for (const n of [1, 40, DENSE_POINTS, DENSE_POINTS + 1, 10_000]) {
    it(`draws p5–p95 of each of ${n} points as one band under the median`, () => {
      const p = points(n);
      const data = seriesFigure(p, "light").data as Trace[];
      expect(data.map((d) => d.name)).toEqual(["p5–p95 low", "p5–p95", "median"]);
      const [low, high, median] = data as [Trace, Trace, Trace];
      // the oracle: each point's bar, from the lower of p5 and the median to the higher of p95
      // and the median (a percentile on the wrong side draws no bar on its side), by a plain loop
      const lows: number[] = [];
      const highs: number[] = [];
      for (let i = 0; i < n; i++) {
        const m = p.value[i]!;
        const p5 = p.p5[i]!;
        const p95 = p.p95[i]!;
        lows.push(p5 > m ? m : p5);
        highs.push(p95 < m ? m : p95);
      }
      // times as milliseconds; past two points a pixel column of the plot's area (1,100 for the
      // default 1,200 px) the band is drawn as its envelope (spread-band.test.ts checks that)
      const ms = p.t.map((t) => Date.parse(t));
      const band = n <= 2 * 1100 ? { x: ms, low: lows, high: highs } : envelope(ms, lows, highs, 1100);
      if (n > 2 * 1100) expect(band.x.length).toBeLessThanOrEqual(2200);
      expect(low.y).toEqual(band.low);
      expect(high.y).toEqual(band.high);
      expect(low.x).toEqual(band.x.map((t) => new Date(t).toISOString()));
      expect(high.x).toEqual(band.x.map((t) => new Date(t).toISOString()));
      // the upper edge fills down to the lower; neither answers a hover nor is a legend entry twice
      expect(high.fill).toBe("tonexty");
      expect(low.fill).toBeUndefined();
      expect([low.hoverinfo, high.hoverinfo]).toEqual(["skip", "skip"]);
      expect(low.showlegend).toBe(false);
      expect([low.mode, high.mode]).toEqual(["lines", "lines"]);
      // the median: every point, its run for the click, its versions in the hover, no error bars
      expect(median.y).toEqual(p.value);
      expect(median.x).toEqual(ms);
      expect(median.customdata).toEqual(p.run);
      expect(median.error_y).toBeUndefined();
      const third = Math.floor(n / 3);
      const twoThirds = Math.floor((2 * n) / 3);
      expect(median.text).toEqual(p.t.map((_, i) => (i < third ? "fs_version 2.0" : i < twoThirds ? "fs_version 2.1" : "fs_version 2.1 · kernel 6.8")));
      expect(median.mode).toBe(n <= DENSE_POINTS ? "lines+markers" : "lines");
    });
  }

  it("stays SVG at 10,000 points (no trace for WebGL), and draws the samples over the band", () => {
    const dense = seriesFigure(points(10_000), "dark");
    expect(forWebGL(dense)).toBe(dense);
    expect(dense.layout.showlegend).toBe(false);
    const withSamples = seriesFigure(points(3000, true), "light");
    const names = withSamples.data.map((d) => d.name);
    expect(names).toEqual(["p5–p95 low", "p5–p95", "samples", "median"]);
    expect(withSamples.layout.showlegend).toBe(true);
    // the samples' markers are per point: WebGL where the browser has it, as before
    expect(forWebGL(withSamples).data.map((d) => d.type)).toEqual(["scatter", "scatter", "scattergl", "scatter"]);
    expect((withSamples.data[2] as Trace).y).toHaveLength(9000);
  });

  it("marks the version changes at their first points", () => {
    const p = points(300);
    const shapes = seriesFigure(p, "light").layout.shapes as { x0: string }[];
    expect(shapes.map((s) => s.x0)).toEqual([p.t[100], p.t[200]]);
  });
});
