// Pure figure builders for the heatmap: explore answers in, a grid of medians (or of their
// change between two values of a dimension) out, and its plotly figure.
import { axis, baseLayout, type Figure, type PlotData } from "../../components/charts/figure";
import { naturalSorted } from "../../lib/natural";
import type { Theme } from "../../lib/theme";
import { humanValue } from "../../lib/units";
import type { Explore, ExplorePoint } from "./api/get-explore";
import { flagNote, unitTicks } from "./figures";
import { classifyDiff, type DiffCell } from "./heatmap-diff";
import type { HeatmapState } from "./url-state";

export type Grid = {
  xs: (string | number)[];
  ys: string[];
  z: (number | null)[][];
  n: (number | null)[][];
  flags: string[][][];
  /** each cell's point (toGrid), for judging a difference */
  points?: (ExplorePoint | null)[][];
  /** a difference's verdict per cell (diffGrid): only a "change" is coloured */
  verdicts?: (DiffCell | null)[][];
};

function sortValues<T extends string | number>(values: T[]): T[] {
  return naturalSorted(values);
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
  const flags = ys.map(() => xs.map((): string[] => []));
  const points = ys.map(() => xs.map((): ExplorePoint | null => null));
  for (const trace of data.traces) {
    const row = ys.indexOf(String(trace.group));
    for (const p of trace.points) {
      const col = xs.findIndex((x) => String(x) === String(p.x));
      if (row >= 0 && col >= 0) {
        z[row]![col] = p.median;
        n[row]![col] = p.n;
        flags[row]![col] = p.flags;
        points[row]![col] = p;
      }
    }
  }
  return { xs, ys, z, n, flags, points };
}

/** b against a in percent, cell by cell, on the union of both grids' axes; null where either is missing. */
export function diffGrid(a: Grid, b: Grid): Grid {
  const xs = sortValues([...new Map([...a.xs, ...b.xs].map((x) => [String(x), x])).values()]);
  const ys = sortValues([...new Set([...a.ys, ...b.ys])]);
  const cell = (g: Grid, y: string, x: string | number): [number, number] | null => {
    const row = g.ys.indexOf(y);
    const col = g.xs.findIndex((v) => String(v) === String(x));
    return row < 0 || col < 0 ? null : [row, col];
  };
  const at = (g: Grid, y: string, x: string | number): number | null => {
    const c = cell(g, y, x);
    return c ? (g.z[c[0]]?.[c[1]] ?? null) : null;
  };
  const pointAt = (g: Grid, y: string, x: string | number): ExplorePoint | null => {
    const c = cell(g, y, x);
    return c ? (g.points?.[c[0]]?.[c[1]] ?? null) : null;
  };
  const flagsAt = (g: Grid, y: string, x: string | number): string[] => {
    const c = cell(g, y, x);
    return c ? (g.flags[c[0]]?.[c[1]] ?? []) : [];
  };
  const z = ys.map((y) =>
    xs.map((x) => {
      const va = at(a, y, x);
      const vb = at(b, y, x);
      if (va === null || vb === null || va === 0) return null;
      return ((vb - va) / Math.abs(va)) * 100;
    }),
  );
  // A difference is as trustworthy as the less trustworthy of its two cells.
  const flags = ys.map((y) => xs.map((x) => [...new Set([...flagsAt(a, y, x), ...flagsAt(b, y, x)])].sort()));
  const verdicts = ys.map((y) =>
    xs.map((x) => {
      const pa = pointAt(a, y, x);
      const pb = pointAt(b, y, x);
      return pa && pb ? classifyDiff(pa, pb) : null;
    }),
  );
  return { xs, ys, z, n: ys.map(() => xs.map(() => null)), flags, verdicts };
}

function heatmapTicks(dimension: string, values: string[]): Record<string, unknown> {
  const ticks = unitTicks(dimension, values);
  return ticks ? { tickmode: "array", ...ticks } : {};
}

export type HeatmapFigureOptions = {
  theme: Theme;
  x: string;
  y: string;
  title: string;
  diff: boolean;
  /** for a difference: "higher" when a rise is good, so good is always blue */
  direction?: string | null;
  /** the server's flag_reasons: a flagged cell gets a ⚠ and its reasons on hover */
  reasons?: Record<string, string>;
};

export function heatmapFigure(grid: Grid, opts: HeatmapFigureOptions): Figure {
  const layout = baseLayout(opts.theme);
  // A difference colours only the changes larger than their noise (heatmap-diff.ts); the rest
  // are drawn grey, apart, with the reason on hover.
  const judged = opts.diff && grid.verdicts ? grid.verdicts : null;
  const coloured = judged ? grid.z.map((row, i) => row.map((v, j) => (judged[i]?.[j]?.kind === "change" ? v : null))) : grid.z;
  const flat = coloured.flat().filter((v): v is number => v !== null);
  const limit = Math.max(1, ...flat.map((v) => Math.abs(v)));
  // Blue is better and red worse whichever way the metric points; grey is no change.
  const mid = opts.theme === "dark" ? "#4c566a" : "#f2f2f2";
  const scale = [
    [0, "#b2182b"],
    [0.25, "#ef8a62"],
    [0.5, mid],
    [0.75, "#67a9cf"],
    [1, "#2166ac"],
  ];
  const colorscale = opts.direction === "lower" ? scale.map(([t], i) => [t, scale[scale.length - 1 - i]![1]]) : scale;
  const cell: PlotData = {
    type: "heatmap",
    x: grid.xs.map(String),
    y: grid.ys,
    z: coloured,
    hoverongaps: false,
    colorbar: { title: { text: opts.title, side: "right" } },
    text: grid.flags.map((row) => row.map((f) => (f.length ? " ⚠" : ""))),
    customdata: grid.flags.map((row, i) => row.map((f, j) => (judged?.[i]?.[j] ? `<br>${judged[i]![j]!.note}` : "") + flagNote(f, opts.reasons ?? {}))),
    texttemplate: opts.diff ? "%{z:+.1f}%%{text}" : "%{z:,.3~r}%{text}",
    // The cell's x and y as people write them (128 KiB); the cells' own labels keep `text` (⚠).
    hovertext: grid.ys.map((y) => grid.xs.map((x) => `${opts.x}=${humanValue(opts.x, x)}<br>${opts.y}=${humanValue(opts.y, y)}`)),
    hovertemplate: `%{hovertext}<br>${opts.diff ? "change %{z:+.1f} %" : "median %{z:,.4~r}"}%{customdata}<extra></extra>`,
  };
  if (opts.diff) {
    Object.assign(cell, { colorscale, zmid: 0, zmin: -limit, zmax: limit });
  } else {
    Object.assign(cell, { colorscale: "Viridis" });
  }
  const data = judged ? [cell, neutralCells(grid, judged, opts, mid)] : [cell];
  return {
    data,
    layout: {
      ...layout,
      // The grid's order (natural) kept by plotly; sizes and durations written as people do.
      xaxis: axis(layout, "xaxis", {
        title: { text: opts.x },
        type: "category",
        categoryorder: "array",
        categoryarray: grid.xs.map(String),
        ...heatmapTicks(opts.x, grid.xs.map(String)),
      }),
      yaxis: axis(layout, "yaxis", {
        title: { text: opts.y },
        type: "category",
        categoryorder: "array",
        categoryarray: grid.ys,
        ...heatmapTicks(opts.y, grid.ys),
      }),
      margin: { l: 80, r: 16, t: 16, b: 56 },
    },
  };
}

/** The cells of a difference that are not coloured: grey, with their change in brackets (or
 * "not comparable") and why on hover. */
function neutralCells(grid: Grid, judged: (DiffCell | null)[][], opts: HeatmapFigureOptions, grey: string): PlotData {
  const neutral = (i: number, j: number) => {
    const v = judged[i]?.[j];
    return v && v.kind !== "change" ? v : null;
  };
  return {
    type: "heatmap",
    name: "within noise or not comparable",
    x: grid.xs.map(String),
    y: grid.ys,
    z: grid.z.map((row, i) => row.map((_, j) => (neutral(i, j) ? 0 : null))),
    hoverongaps: false,
    showscale: false,
    colorscale: [
      [0, grey],
      [1, grey],
    ],
    text: grid.z.map((row, i) =>
      row.map((_, j) => {
        const v = neutral(i, j);
        if (!v) return "";
        return v.kind === "incomparable" ? "not comparable" : `(${v.pct >= 0 ? "+" : ""}${v.pct.toFixed(1)}%)`;
      }),
    ),
    customdata: grid.z.map((row, i) => row.map((_, j) => neutral(i, j)?.note ?? "")),
    texttemplate: "%{text}",
    hovertemplate: `${opts.x}=%{x}<br>${opts.y}=%{y}<br>%{text}: neutral<br>%{customdata}<extra></extra>`,
  } as PlotData;
}

/** The heatmap of the explore answers behind it (two for a difference, b against a), or null while
 * one is missing or no cell has both dimensions set. */
export function heatmapOf(answers: (Explore | undefined)[], state: HeatmapState, theme: Theme): Figure | null {
  const loaded = answers.filter((d) => d !== undefined);
  if (loaded.length === 0 || loaded.length !== answers.length) return null;
  const isDiff = loaded.length === 2;
  const grids = loaded.map((d) => toGrid(d));
  const grid = isDiff ? diffGrid(grids[0]!, grids[1]!) : grids[0]!;
  if (grid.xs.length === 0 || grid.ys.length === 0) return null;
  const first = loaded[0]!;
  return heatmapFigure(grid, {
    theme,
    x: state.x,
    y: state.y,
    diff: isDiff,
    direction: first.direction,
    reasons: first.flag_reasons,
    title: isDiff ? `${state.b} vs ${state.a} (%), blue = better` : `median ${first.unit ?? ""}`,
  });
}
