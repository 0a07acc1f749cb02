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
  return bandTraces({ x, low, high, fill, name });
}

/** The band's two traces from its edges as they are (spreadBand's, or their envelope). */
export function bandTraces({
  x,
  low,
  high,
  fill,
  name = "p5–p95",
}: {
  x: readonly unknown[];
  low: readonly number[];
  high: readonly number[];
  fill: string;
  name?: string;
}): PlotData[] {
  const edge = { type: "scatter", mode: "lines", x, line: { width: 0 }, hoverinfo: "skip", legendgroup: "spread" };
  return [
    { ...edge, name: `${name} low`, y: low, showlegend: false },
    { ...edge, name, y: high, fill: "tonexty", fillcolor: fill },
  ];
}

/** The band's edges at most `buckets` columns wide: the points are grouped by x into `buckets`
 * equal spans, and each span contributes its first and last x with the span's lowest low and
 * highest high (a band that covers every point's, drawn with ~2 vertices per pixel column
 * instead of one per point: plotly's cost for a filled edge grows with its points). x must be
 * numbers in ascending order; fewer points than 2 × buckets are returned as they are. */
export function envelope(
  x: readonly number[],
  low: readonly number[],
  high: readonly number[],
  buckets: number,
): { x: number[]; low: number[]; high: number[] } {
  const n = x.length;
  if (n <= 2 * buckets || n === 0) return { x: [...x], low: [...low], high: [...high] };
  const x0 = x[0] as number;
  const span = (x[n - 1] as number) - x0 || 1;
  const ox: number[] = [];
  const ol: number[] = [];
  const oh: number[] = [];
  const column = (k: number) => Math.min(buckets - 1, Math.floor((((x[k] as number) - x0) / span) * buckets));
  let i = 0;
  while (i < n) {
    const b = column(i);
    let lo = low[i] as number;
    let hi = high[i] as number;
    let j = i + 1;
    while (j < n && column(j) === b) {
      lo = Math.min(lo, low[j] as number);
      hi = Math.max(hi, high[j] as number);
      j += 1;
    }
    ox.push(x[i] as number);
    ol.push(lo);
    oh.push(hi);
    if (j - 1 > i) {
      ox.push(x[j - 1] as number);
      ol.push(lo);
      oh.push(hi);
    }
    i = j;
  }
  return { x: ox, low: ol, high: oh };
}

/** The envelope of the points whose x lies in `range` (and one on either side, so that the band
 * reaches the plot's edges), `buckets` columns wide; the whole band's envelope for null. */
export function envelopeIn(
  x: readonly number[],
  low: readonly number[],
  high: readonly number[],
  range: [number, number] | null,
  buckets: number,
): { x: number[]; low: number[]; high: number[] } {
  if (!range) return envelope(x, low, high, buckets);
  let from = 0;
  while (from < x.length && (x[from] as number) < range[0]) from += 1;
  let to = x.length;
  while (to > from && (x[to - 1] as number) > range[1]) to -= 1;
  from = Math.max(0, from - 1);
  to = Math.min(x.length, to + 1);
  return envelope(x.slice(from, to), low.slice(from, to), high.slice(from, to), buckets);
}
