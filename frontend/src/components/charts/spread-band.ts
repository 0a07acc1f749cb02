// The p5–p95 spread drawn as one filled band under a median line: two line traces (the band's
// lower and upper edges, the upper filled down to the lower), each one SVG path however many
// points it has. A series' 10,000 error bars were 10,000 shapes for the browser to draw (about
// 1 s of software WebGL on a busy 2-core machine, against ~0.1 s for the band).
import type { PlotData } from "./figure";

export type SpreadBandOptions = {
  x: readonly unknown[];
  /** the medians the band surrounds */
  median: readonly number[];
  /** each median's p5 and p95; a missing one (null, undefined, or a shorter list) is the median */
  p5: readonly (number | null | undefined)[];
  p95: readonly (number | null | undefined)[];
  /** the band's fill, a colour with its alpha */
  fill: string;
  /** the legend's name for the band */
  name?: string;
};

/** The band's edges, point by point: p5 and p95 as error bars would span them. A percentile on
 * the wrong side of its median is taken as the median (a bar draws nothing on that side). */
export function spreadEdges(
  median: readonly number[],
  p5: readonly (number | null | undefined)[],
  p95: readonly (number | null | undefined)[],
): { low: number[]; high: number[] } {
  return {
    low: median.map((m, i) => Math.min(p5[i] ?? m, m)),
    high: median.map((m, i) => Math.max(p95[i] ?? m, m)),
  };
}

/** The two traces of the band, to come before the median's trace (so that it is drawn on top). */
export function spreadBand({ x, median, p5, p95, fill, name = "p5–p95" }: SpreadBandOptions): PlotData[] {
  const { low, high } = spreadEdges(median, p5, p95);
  const edge = { type: "scatter", mode: "lines", x, line: { width: 0 }, hoverinfo: "skip", legendgroup: "spread" };
  return [
    { ...edge, name: `${name} low`, y: low, showlegend: false },
    { ...edge, name, y: high, fill: "tonexty", fillcolor: fill },
  ];
}
