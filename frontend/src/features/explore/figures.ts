// Pure figure builders for Explore and Heatmap: API data in, plotly figure out.
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import type { Theme } from "../../lib/theme";
import type { Explore, ExplorePoint } from "./api/get-explore";
import type { ExploreView } from "./url-state";

export type ExploreFigureOptions = { view: ExploreView; logx: boolean; logy: boolean; theme: Theme };

export function groupName(group: string | null | undefined, dimension: string | null | undefined): string {
  if (!dimension) return "all runs";
  if (group === null || group === undefined) return `${dimension} not set`;
  return `${dimension}=${group}`;
}

function yTitle(data: Explore): string {
  const unit = data.unit ? ` (${data.unit})` : "";
  const better = data.direction === "higher" ? ", higher is better" : data.direction === "lower" ? ", lower is better" : "";
  return `${data.metric}${unit}${better}`;
}

function hover(data: Explore): string {
  return `<b>%{fullData.name}</b><br>${data.x}=%{x}<br>median %{y:.4g}${data.unit ? " " + data.unit : ""}<br>%{customdata[5]}<extra></extra>`;
}

function fmt(v: number): string {
  return Number.isFinite(v) ? Number(v.toPrecision(4)).toString() : "–";
}

/** The hover's last line: which run, or how many runs and their spread. */
export function pointNote(p: ExplorePoint, time: boolean): string {
  const newest = (p.runs[0] ?? "").slice(0, 8);
  if (time) return `run ${newest} · samples p5 ${fmt(p.p5)} – p95 ${fmt(p.p95)} (n=${p.n})`;
  if (p.n === 1) return `1 run: ${newest} (click to open)`;
  return `${p.n} runs, p5 ${fmt(p.p5)} – p95 ${fmt(p.p95)}<br>newest ${newest} (click to list them)`;
}

function customdata(points: ExplorePoint[], time: boolean): unknown[][] {
  return points.map((p) => [p.runs[0] ?? "", p.n, p.p5, p.p95, p.runs, pointNote(p, time)]);
}

export function exploreFigure(data: Explore, opts: ExploreFigureOptions): Figure {
  const layout = baseLayout(opts.theme);
  const time = data.x === "time";
  const traces: PlotData[] = data.traces.map((trace, i) => {
    const name = groupName(trace.group, data.group);
    const color = colorAt(i);
    const xs = trace.points.map((p) => p.x);
    if (opts.view === "box") {
      // A box per point from its summary: whiskers min..max, box p5..p95, line at the median.
      return {
        type: "box",
        name,
        x: xs,
        lowerfence: trace.points.map((p) => p.min),
        q1: trace.points.map((p) => p.p5),
        median: trace.points.map((p) => p.median),
        q3: trace.points.map((p) => p.p95),
        upperfence: trace.points.map((p) => p.max),
        marker: { color },
        line: { color },
        customdata: customdata(trace.points, time),
        hovertemplate: hover(data),
      };
    }
    const sorted = time || data.x_numeric;
    return {
      type: "scatter",
      mode: opts.view === "points" || time ? "markers" : sorted ? "lines+markers" : "markers",
      name,
      x: xs,
      y: trace.points.map((p) => p.median),
      error_y: {
        type: "data",
        symmetric: false,
        array: trace.points.map((p) => Math.max(0, p.p95 - p.median)),
        arrayminus: trace.points.map((p) => Math.max(0, p.median - p.p5)),
        color,
        thickness: 1,
        width: 3,
      },
      marker: { color, size: 7 },
      line: { color, width: 2 },
      customdata: customdata(trace.points, time),
      hovertemplate: hover(data),
    };
  });
  const xType = time ? "date" : opts.logx && data.x_numeric ? "log" : data.x_numeric ? "linear" : "category";
  return {
    data: traces,
    layout: {
      ...layout,
      boxmode: opts.view === "box" ? "group" : undefined,
      showlegend: traces.length > 1 || Boolean(data.group),
      xaxis: axis(layout, "xaxis", { title: { text: data.x }, type: xType }),
      yaxis: axis(layout, "yaxis", { title: { text: yTitle(data) }, type: opts.logy ? "log" : "linear", rangemode: opts.logy ? undefined : "tozero" }),
    },
  };
}

export type Grid = { xs: (string | number)[]; ys: string[]; z: (number | null)[][]; n: (number | null)[][] };

function sortValues<T extends string | number>(values: T[]): T[] {
  const numeric = values.every((v) => typeof v === "number" || (v !== "" && !Number.isNaN(Number(v))));
  return [...values].sort((a, b) => (numeric ? Number(a) - Number(b) : String(a).localeCompare(String(b))));
}

/** An explore answer with x = one parameter and group = another, as a grid of medians. */
export function toGrid(data: Explore): Grid {
  const xSet = new Map<string, string | number>();
  const ySet = new Set<string>();
  for (const trace of data.traces) {
    ySet.add(String(trace.group));
    for (const p of trace.points) if (p.x !== null) xSet.set(String(p.x), p.x);
  }
  const xs = sortValues([...xSet.values()]);
  const ys = sortValues([...ySet]);
  const z = ys.map(() => xs.map((): number | null => null));
  const n = ys.map(() => xs.map((): number | null => null));
  for (const trace of data.traces) {
    const row = ys.indexOf(String(trace.group));
    for (const p of trace.points) {
      const col = xs.findIndex((x) => String(x) === String(p.x));
      if (row >= 0 && col >= 0) {
        z[row]![col] = p.median;
        n[row]![col] = p.n;
      }
    }
  }
  return { xs, ys, z, n };
}

/** b against a in percent, cell by cell, on the union of both grids' axes; null where either is missing. */
export function diffGrid(a: Grid, b: Grid): Grid {
  const xs = sortValues([...new Map([...a.xs, ...b.xs].map((x) => [String(x), x])).values()]);
  const ys = sortValues([...new Set([...a.ys, ...b.ys])]);
  const at = (g: Grid, y: string, x: string | number): number | null => {
    const row = g.ys.indexOf(y);
    const col = g.xs.findIndex((v) => String(v) === String(x));
    return row < 0 || col < 0 ? null : (g.z[row]?.[col] ?? null);
  };
  const z = ys.map((y) =>
    xs.map((x) => {
      const va = at(a, y, x);
      const vb = at(b, y, x);
      if (va === null || vb === null || va === 0) return null;
      return ((vb - va) / Math.abs(va)) * 100;
    }),
  );
  return { xs, ys, z, n: ys.map(() => xs.map(() => null)) };
}

export type HeatmapFigureOptions = {
  theme: Theme;
  x: string;
  y: string;
  title: string;
  diff: boolean;
  /** for a difference: "higher" when a rise is good, so good is always blue */
  direction?: string | null;
};

export function heatmapFigure(grid: Grid, opts: HeatmapFigureOptions): Figure {
  const layout = baseLayout(opts.theme);
  const flat = grid.z.flat().filter((v): v is number => v !== null);
  const limit = Math.max(1, ...flat.map((v) => Math.abs(v)));
  // Blue is better and red worse whichever way the metric points; grey is no change.
  const mid = opts.theme === "dark" ? "#4c566a" : "#f2f2f2";
  const scale = [[0, "#b2182b"], [0.25, "#ef8a62"], [0.5, mid], [0.75, "#67a9cf"], [1, "#2166ac"]];
  const colorscale = opts.direction === "lower" ? scale.map(([t], i) => [t, scale[scale.length - 1 - i]![1]]) : scale;
  const cell: PlotData = {
    type: "heatmap",
    x: grid.xs.map(String),
    y: grid.ys,
    z: grid.z,
    hoverongaps: false,
    colorbar: { title: { text: opts.title, side: "right" } },
    texttemplate: opts.diff ? "%{z:+.1f}%" : "%{z:.3g}",
    hovertemplate: `${opts.x}=%{x}<br>${opts.y}=%{y}<br>${opts.diff ? "change %{z:+.1f} %" : "median %{z:.4g}"}<extra></extra>`,
  };
  if (opts.diff) {
    Object.assign(cell, { colorscale, zmid: 0, zmin: -limit, zmax: limit });
  } else {
    Object.assign(cell, { colorscale: "Viridis" });
  }
  return {
    data: [cell],
    layout: {
      ...layout,
      xaxis: axis(layout, "xaxis", { title: { text: opts.x }, type: "category" }),
      yaxis: axis(layout, "yaxis", { title: { text: opts.y }, type: "category" }),
      margin: { l: 80, r: 16, t: 16, b: 56 },
    },
  };
}
