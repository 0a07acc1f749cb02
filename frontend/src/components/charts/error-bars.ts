// The p5–p95 spread drawn as asymmetric error bars around a median: one builder for every chart
// that shows a median with its spread (Explore's lines, a series' history, an alert's series).
import type { PlotData } from "./figure";

export type SpreadBarsOptions = {
  /** the medians the bars hang from */
  median: readonly number[];
  /** each median's p5 and p95; a missing one (null, undefined, or a shorter list) draws no bar on that side */
  p5: readonly (number | null | undefined)[];
  p95: readonly (number | null | undefined)[];
  color: string;
  /** the width of the bars' caps, in pixels */
  capWidth?: number;
};

/** plotly's `error_y` for p5..p95 around each median. A percentile on the wrong side of its median
 * draws no bar on that side: plotly would draw a negative length the other way. */
export function spreadErrorBars({ median, p5, p95, color, capWidth = 2 }: SpreadBarsOptions): PlotData {
  return {
    type: "data",
    symmetric: false,
    array: median.map((m, i) => Math.max(0, (p95[i] ?? m) - m)),
    arrayminus: median.map((m, i) => Math.max(0, m - (p5[i] ?? m))),
    color,
    thickness: 1,
    width: capWidth,
  };
}
