// Pure figure builder for a series' history: medians over time with their p5..p95 spread (a
// band) and, when asked, every sample.
import { DENSE_POINTS } from "../../components/charts/dense";
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import { bandTraces, envelope, envelopeIn, spreadEdges } from "../../components/charts/spread-band";
import type { Theme } from "../../lib/theme";
import type { SeriesPoints } from "./api/get-series-points";
import { MAX_VERSION_MARKS, NAME_ROWS, placeNames, versionChanges, versionTexts } from "./versions";
import { changePointMarks, type SeriesChangePoint } from "../alerts";

/** A plot's width in pixels when not known (a desktop's): the names' places in a figure drawn
 * without a width (SeriesChart places them again for the plot's own, seriesMarks). */
export const DEFAULT_PLOT_WIDTH = 1200;
/** The plot area's width within the plot's: the margins' and the y axis' room, roughly. */
const PLOT_AREA_INSET = 100;

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A series' history; its marks (version changes, change points) as shapes and annotations of
 * its layout, from seriesMarks. */
export function seriesFigure(points: SeriesPoints, theme: Theme, changePoints: SeriesChangePoint[] = [], width = DEFAULT_PLOT_WIDTH): Figure {
  const layout = baseLayout(theme);
  const color = colorAt(0);
  const unit = points.series.unit;
  // The spread first: the samples and the median are drawn over it.
  // Times as milliseconds: plotly reads a number on a date axis without parsing a string (a
  // third of its draw for 3 traces of 10,000 ISO times), and shows it as the same UTC time.
  const xs = points.t.map((t) => Date.parse(t));
  // The band (no hover: a shape) is drawn as its envelope a pixel column wide, ~2 vertices per
  // column instead of one per point (plotly's cost for a filled edge grows with its points: the
  // two edges of 10,000 points were about half of the draw); a zoom draws the range shown so.
  const edges = spreadEdges(points.value, points.p5, points.p95);
  const columns = Math.max(width - PLOT_AREA_INSET, 50);
  const band = envelope(xs, edges.low, edges.high, columns);
  const data: PlotData[] = bandTraces({
    x: band.x.map(isoTime),
    low: band.low,
    high: band.high,
    fill: theme === "dark" ? "rgba(86,180,233,0.25)" : "rgba(0,114,178,0.18)",
  });
  if (points.samples) {
    const x: number[] = [];
    const y: number[] = [];
    const runs: string[] = [];
    points.samples.forEach((samples, i) => {
      for (const s of samples) {
        x.push(xs[i] ?? NaN);
        y.push(s);
        runs.push(points.run[i] ?? "");
      }
    });
    data.push({
      type: "scatter",
      mode: "markers",
      name: "samples",
      x,
      y,
      customdata: runs,
      marker: { color: theme === "dark" ? "rgba(216,222,233,0.35)" : "rgba(31,41,51,0.3)", size: 4 },
      hovertemplate: `sample %{y:.4g} ${unit}<br>run %{customdata}<extra></extra>`,
    });
  }
  // Each point's version labels in its hover, when the answer has them.
  const spans = points.versions ?? [];
  const versioned = spans.some((s) => Object.keys(s.labels).length > 0);
  // A marker per point while they are few enough to tell apart; past DENSE_POINTS they would
  // merge into the line (10,000 of them on a plot some 1,200 pixels wide) and are left out, so
  // that the median stays one SVG path (dense.ts leaves a trace without markers to SVG). Hover
  // and clicks still find every point.
  const markers = points.t.length <= DENSE_POINTS;
  data.push({
    type: "scatter",
    mode: markers ? "lines+markers" : "lines",
    name: "median",
    x: xs,
    y: points.value,
    customdata: points.run,
    ...(versioned ? { text: versionTexts(spans, points.t.length) } : {}),
    marker: { color, size: 6 },
    line: { color, width: 1.5 },
    hovertemplate: `%{x}<br>median %{y:.4g} ${unit}${versioned ? "<br>%{text}" : ""}<br>run %{customdata}<extra></extra>`,
  });
  const changes = versionChanges(spans, points.t).slice(0, MAX_VERSION_MARKS);
  const better = points.series.direction === "higher" ? ", higher is better" : points.series.direction === "lower" ? ", lower is better" : "";
  // The band's times as ISO text (few: cheap to read): a restyle of its traces lets plotly guess
  // the x axis' type again from the first trace's values, and milliseconds would read as linear.
  const refine = (range: [number, number] | null) => {
    const shown = envelopeIn(xs, edges.low, edges.high, range, columns);
    const times = shown.x.map(isoTime);
    return { traces: [0, 1], x: [times, times], y: [shown.low, shown.high] };
  };
  return {
    data,
    refine,
    layout: {
      ...layout,
      // Room above the plot for the names of the version changes.
      ...(changes.length > 0 ? { margin: { ...(layout.margin as Record<string, unknown>), t: 16 + 14 * NAME_ROWS } } : {}),
      showlegend: Boolean(points.samples),
      ...seriesMarks(points, theme, changePoints, width),
      xaxis: axis(layout, "xaxis", { title: { text: "time" }, type: "date" }),
      yaxis: axis(layout, "yaxis", { title: { text: `${points.series.metric} (${unit})${better}` }, rangemode: "tozero" }),
    },
  };
}

/** Places held for change points' flags while none has come: a window with more change points
 * than this, when they come after the points, draws the plot once more (an annotation added
 * draws everything), and every place held costs the first draw a little (~2 ms). */
export const CHANGE_FLAG_PLACES = 12;

/** The layout's marks over a series' points: a dotted line at each version change, named by
 * the new version above the plot where the name fits (placeNames, for a plot `width` pixels
 * wide), and the change points' lines and flags. Layout only: the plot applies them again by
 * Plotly.relayout when the change points arrive or its width changes, without drawing its
 * points again (components/charts/Plot.tsx's overlay). */
export function seriesMarks(
  points: SeriesPoints,
  theme: Theme,
  changePoints: SeriesChangePoint[],
  width: number,
): { shapes: Record<string, unknown>[]; annotations: Record<string, unknown>[] } {
  const changes = versionChanges(points.versions ?? [], points.t).slice(0, MAX_VERSION_MARKS);
  const muted = theme === "dark" ? "rgba(216,222,233,0.55)" : "rgba(31,41,51,0.45)";
  const from = Date.parse(points.t[0] ?? "");
  const to = Date.parse(points.t[points.t.length - 1] ?? "");
  const places = placeNames(
    changes.map((c) => ({ at: Date.parse(c.t), text: c.text })),
    from,
    to,
    Math.max(width - PLOT_AREA_INSET, 50),
  );
  const cps = changePointMarks(changePoints, points.series.unit);
  // As many annotations whatever the change points and the width, and all visible: a name that
  // fits nowhere has no text, and the flags fill places held by empty ones. Plot.tsx lays them
  // over the plot drawn, and plotly draws changed annotations alone only so (an annotation
  // added, removed, shown or hidden draws the whole plot again: 60-80 ms and its 10,000 points,
  // against 5-10 ms for a text or a place changed).
  const names = changes.map((c, i) => {
    const place = places[i];
    return {
      visible: true,
      x: c.t,
      xref: "x",
      y: 1,
      yref: "paper",
      yanchor: "bottom",
      xanchor: place?.xanchor ?? "left",
      yshift: 14 * (place?.row ?? 0),
      text: place ? c.text : "",
      showarrow: false,
      font: { size: 10, color: muted },
      name: `version:${c.at}`,
    };
  });
  const hidden = { visible: true, x: points.t[0] ?? null, xref: "x", y: 1, yref: "paper", text: "", showarrow: false };
  const flags = [...cps.annotations, ...Array.from({ length: Math.max(0, CHANGE_FLAG_PLACES - cps.annotations.length) }, () => hidden)];
  return {
    shapes: [
      ...changes.map((c) => ({
        type: "line",
        xref: "x",
        yref: "paper",
        x0: c.t,
        x1: c.t,
        y0: 0,
        y1: 1,
        line: { color: muted, width: 1, dash: "dot" },
        name: `version:${c.at}`,
      })),
      ...cps.shapes,
    ],
    annotations: [...names, ...flags],
  };
}
