// Dense traces drawn by WebGL. plotly draws a scatter trace's every marker and error bar as an
// SVG element: 10,000 points blocked a busy 2-core machine's browser for 2 to 3 s, 50,000 for
// 7 s. A trace past DENSE_POINTS is drawn as `scattergl` instead (the same markers, lines, error
// bars, hover and clicks, on a canvas), when the browser has WebGL; below it, SVG stays (crisper,
// and what the charts' tests read). A trace of lines alone (no markers, text or error bars) is
// one SVG path however long, and stays SVG: 10,000 points as a line took plotly ~0.2 s to draw,
// against ~1-2 s for the same points by Chromium's software WebGL (SwiftShader, no GPU), most of
// it after the draw call, reading the canvas back for the page (tests/bench/bench_series_page.py).
import type { Figure, PlotData } from "./figure";

export const DENSE_POINTS = 2000;

function points(trace: PlotData): number {
  const x = trace.x as ArrayLike<unknown> | undefined;
  const y = trace.y as ArrayLike<unknown> | undefined;
  return Math.max(x?.length ?? 0, y?.length ?? 0);
}

/** Whether the trace draws an SVG element per point: markers or text (a trace without a mode
 * is taken to have them), or error bars. */
function perPoint(trace: PlotData): boolean {
  const mode = typeof trace.mode === "string" ? trace.mode : "markers";
  return mode.includes("markers") || mode.includes("text") || trace.error_y !== undefined || trace.error_x !== undefined;
}

/** Whether the trace is an SVG scatter past DENSE_POINTS that draws each point. */
export function isDense(trace: PlotData): boolean {
  return (trace.type ?? "scatter") === "scatter" && points(trace) > DENSE_POINTS && perPoint(trace);
}

/** The figure with its dense scatter traces as scattergl (the same figure when it has none). */
export function forWebGL(figure: Figure): Figure {
  if (!figure.data.some(isDense)) return figure;
  return { ...figure, data: figure.data.map((t) => (isDense(t) ? { ...t, type: "scattergl" } : t)) };
}

let webgl: boolean | null = null;

/** Whether this browser draws WebGL (asked once). */
export function hasWebGL(): boolean {
  if (webgl === null) {
    try {
      webgl = typeof document !== "undefined" && document.createElement("canvas").getContext("webgl") !== null;
    } catch {
      webgl = false;
    }
  }
  return webgl;
}
