import { describe, expect, it } from "vitest";
import { spreadErrorBars } from "./error-bars";

describe("spreadErrorBars", () => {
  it("hangs p95 above and p5 below each median, as distances", () => {
    const median = [100, 2.5, 7000, 0.004];
    const p5 = [90, 2.0, 6100, 0.001];
    const p95 = [130, 2.75, 7100, 0.009];
    const bars = spreadErrorBars({ median, p5, p95, color: "#0072B2", capWidth: 3 }) as { array: number[]; arrayminus: number[] };
    // the oracle: plain subtraction, point by point
    const up = median.map((m, i) => p95[i]! - m);
    const down = median.map((m, i) => m - p5[i]!);
    expect(bars.array).toEqual(up);
    expect(bars.arrayminus).toEqual(down);
    expect(bars.array).toEqual([30, 0.25, 100, 0.009 - 0.004]);
    expect(bars).toMatchObject({ type: "data", symmetric: false, color: "#0072B2", thickness: 1, width: 3 });
  });

  it("draws no bar on a side whose percentile is missing or on the wrong side of the median", () => {
    const bars = spreadErrorBars({ median: [10, 20, 30, 40], p5: [12, null, 25], p95: [15, 18, undefined, 50], color: "red" }) as {
      array: number[];
      arrayminus: number[];
      width: number;
    };
    expect(bars.array).toEqual([5, 0, 0, 10]);
    expect(bars.arrayminus).toEqual([0, 0, 5, 0]);
    expect(bars.width).toBe(2);
  });

  it("gives empty bars for an empty series", () => {
    const bars = spreadErrorBars({ median: [], p5: [], p95: [], color: "red" }) as { array: number[]; arrayminus: number[] };
    expect(bars.array).toEqual([]);
    expect(bars.arrayminus).toEqual([]);
  });
});
