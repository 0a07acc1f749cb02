import { describe, expect, it } from "vitest";
import { spreadBand, spreadEdges } from "./spread-band";

describe("spreadBand", () => {
  it("spans p5 to p95 around each median, as error bars would", () => {
    const median = [100, 2.5, 7000, 0.004];
    const p5 = [90, 2.0, 6100, 0.001];
    const p95 = [130, 2.75, 7100, 0.009];
    const [low, high] = spreadBand({ x: ["a", "b", "c", "d"], median, p5, p95, fill: "rgba(0,0,0,0.2)" }) as [Record<string, unknown>, Record<string, unknown>];
    expect(low.y).toEqual(p5);
    expect(high.y).toEqual(p95);
    expect(high).toMatchObject({ name: "p5–p95", fill: "tonexty", fillcolor: "rgba(0,0,0,0.2)", mode: "lines", hoverinfo: "skip", x: ["a", "b", "c", "d"] });
    expect(low).toMatchObject({ name: "p5–p95 low", showlegend: false, mode: "lines", hoverinfo: "skip" });
    expect(low.fill).toBeUndefined();
  });

  it("takes a missing percentile, or one on the wrong side of its median, as the median", () => {
    const { low, high } = spreadEdges([10, 20, 30, 40], [12, null, 25], [15, 18, undefined, 50]);
    expect(low).toEqual([10, 20, 25, 40]);
    expect(high).toEqual([15, 20, 30, 50]);
    expect(spreadEdges([], [], [])).toEqual({ low: [], high: [] });
  });
});
