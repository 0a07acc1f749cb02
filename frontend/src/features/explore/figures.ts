// Pure figure builders for Explore and Heatmap: API data in, plotly figure out.
import { spreadErrorBars } from "../../components/charts/error-bars";
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import { mergedOrder, naturalSorted } from "../../lib/natural";
import type { Theme } from "../../lib/theme";
import { humanValue, unitOf } from "../../lib/units";
import type { Explore, ExplorePoint, ExploreTrace } from "./api/get-explore";
import { classifyDiff, type DiffCell } from "./heatmap-diff";
import type { ExploreView, HeatmapState } from "./url-state";

export type ExploreFigureOptions = { view: ExploreView; logx: boolean; logy: boolean; theme: Theme };

export function groupName(group: string | null | undefined, dimension: string | null | undefined): string {
  if (!dimension) return "all runs";
  // group=metric: the trace is the metric itself.
  if (dimension === "metric" && group) return group;
  if (group === null || group === undefined) return `${dimension} not set`;
  return `${dimension}=${humanValue(dimension, group)}`;
}

/** A trace's legend name: its group as before, then the values it is split by (fsync=file). */
export function traceName(trace: ExploreTrace, data: Explore): string {
  const split = Object.entries(trace.split ?? {});
  if (split.length === 0) return groupName(trace.group, data.group);
  const words = split.map(([name, value]) => `${shortName(name)}=${value === null || value === undefined ? "not set" : humanValue(name, value)}`);
  const base = data.group ? [groupName(trace.group_value, data.group)] : [];
  return [...base, ...words].join(" · ");
}

/** param.fsync and label.version as people say them. */
export function shortName(name: string): string {
  return name.replace(/^(param|label)\./, "");
}

/** Memory-backed or no-flush points: a diamond, and why on hover (the server's durability_reasons). */
export const DURABLE_SYMBOL = "diamond";

export function durabilityNote(p: ExplorePoint, reasons: Record<string, string>): string {
  const notes = p.durability ?? [];
  if (notes.length === 0) return "";
  const first = notes.includes("memory_backed") ? "memory_backed" : notes[0]!;
  const why = first === "memory_backed" ? "tmpfs: memory-backed, fsync does not reach stable storage" : (reasons[first] ?? first);
  return `<br>◆ ${why}`;
}

function yTitle(data: Explore): string {
  const unit = data.unit ? ` (${data.unit})` : "";
  const better = data.direction === "higher" ? ", higher is better" : data.direction === "lower" ? ", lower is better" : "";
  return `${data.metric.split(",").join(", ")}${unit}${better}`;
}

function hover(data: Explore): string {
  // A size or duration as people write it (128 KiB), from customdata; anything else as plotted.
  const x = unitOf(data.x) ? "%{customdata[7]}" : "%{x}";
  return `<b>%{fullData.name}</b><br>${data.x}=${x}<br>median %{y:,.4~r}${data.unit ? " " + data.unit : ""}<br>%{customdata[5]}%{customdata[6]}%{customdata[8]}%{customdata[9]}<extra></extra>`;
}

/** Why a point's numbers need care, one line per flag, in the server's words (flag_reasons). */
export function flagNote(flags: string[], reasons: Record<string, string>): string {
  return flags.map((f) => `<br>⚠ ${f.replaceAll("_", " ")}: ${reasons[f] ?? f}`).join("");
}

export const FLAGGED_SYMBOL = "circle-open";

function fmt(v: number): string {
  return Number.isFinite(v) ? Number(v.toPrecision(4)).toString() : "–";
}

/** The hover's last line: which run, or how many runs and their spread. */
export function pointNote(p: ExplorePoint, time: boolean): string {
  const newest = (p.runs[0] ?? "").slice(0, 8);
  const spread = `p5 ${fmt(p.p5)} – p95 ${fmt(p.p95)}`;
  if (time || p.n === 1) return `run ${newest}: ${p.repetitions} repetitions, ${spread} (click to open)`;
  return `${p.n} runs, ${p.repetitions} repetitions, ${spread}<br>newest ${newest} (click to list them)`;
}

/** What a point pools, for its hover: "mixes fsync: file, none". */
export function mixNote(p: ExplorePoint): string {
  return Object.entries(p.mixes ?? {})
    .map(([name, values]) => `<br>mixes ${shortName(name)}: ${values.map((v) => (v === null ? "not set" : humanValue(name, v))).join(", ")}`)
    .join("");
}

function customdata(points: ExplorePoint[], time: boolean, data: Explore): unknown[][] {
  const reasons = data.flag_reasons;
  const durable = data.durability_reasons ?? {};
  return points.map((p) => [
    p.runs[0] ?? "",
    p.n,
    p.p5,
    p.p95,
    p.runs,
    pointNote(p, time),
    flagNote(p.flags, reasons),
    humanValue(data.x, p.x),
    durabilityNote(p, durable),
    mixNote(p),
  ]);
}

function symbol(p: ExplorePoint): string {
  const durable = (p.durability ?? []).length > 0;
  if (durable) return p.flags.length ? `${DURABLE_SYMBOL}-open` : DURABLE_SYMBOL;
  return p.flags.length ? FLAGGED_SYMBOL : "circle";
}

type XValue = string | number;

/** The x categories in order: each trace's points come in the server's order (natural, or the
 * one asked for the dimension), merged; plotly is given it so that it neither re-sorts them nor
 * takes them in order of first appearance. */
export function categoryOrder(data: Explore): XValue[] {
  return mergedOrder(data.traces.map((t) => t.points.map((p) => p.x).filter((x): x is XValue => x !== null && x !== undefined)));
}

/** The axis's ticks written as people write sizes and durations (128 KiB, not 131072), or
 * nothing for other dimensions (or too many values to label each). */
export function unitTicks(dimension: string, values: XValue[]): { tickvals: XValue[]; ticktext: string[] } | null {
  if (!unitOf(dimension) || values.length === 0 || values.length > 40) return null;
  return { tickvals: values, ticktext: values.map((v) => humanValue(dimension, v)) };
}

export function exploreFigure(data: Explore, opts: ExploreFigureOptions): Figure {
  const layout = baseLayout(opts.theme);
  const time = data.x === "time";
  const category = !time && !data.x_numeric;
  const categories = category ? categoryOrder(data) : [];
  const place = new Map(categories.map((x, i) => [String(x), i]));
  const traces: PlotData[] = data.traces.map((trace, i) => {
    const name = traceName(trace, data);
    const color = colorAt(i);
    // Along a category axis a line joins the points in the axis's order, not in the data's.
    const points = category ? [...trace.points].sort((a, b) => (place.get(String(a.x)) ?? Infinity) - (place.get(String(b.x)) ?? Infinity)) : trace.points;
    const xs = points.map((p) => p.x);
    const custom = customdata(points, time, data);
    if (opts.view === "box") {
      // A box per point from its summary: whiskers min..max, box p5..p95, line at the median.
      return {
        type: "box",
        name,
        x: xs,
        lowerfence: points.map((p) => p.min),
        q1: points.map((p) => p.p5),
        median: points.map((p) => p.median),
        q3: points.map((p) => p.p95),
        upperfence: points.map((p) => p.max),
        marker: { color },
        line: { color },
        customdata: custom,
        hovertemplate: hover(data),
      };
    }
    return {
      type: "scatter",
      // Lines join the points along numbers, versions and labels alike; along time each point
      // is one run, markers only.
      mode: opts.view === "points" || time ? "markers" : "lines+markers",
      name,
      x: xs,
      y: points.map((p) => p.median),
      error_y: spreadErrorBars({
        median: points.map((p) => p.median),
        p5: points.map((p) => p.p5),
        p95: points.map((p) => p.p95),
        color,
        capWidth: 3,
      }),
      // A flagged point is hollow and larger, so it stands out without hiding its value.
      marker: {
        color,
        size: points.map((p) => (p.flags.length || (p.durability ?? []).length ? 11 : 7)),
        symbol: points.map(symbol),
        line: { color, width: 2 },
      },
      line: { color, width: 2 },
      customdata: custom,
      hovertemplate: hover(data),
    };
  });
  const xType = time ? "date" : opts.logx && data.x_numeric ? "log" : data.x_numeric ? "linear" : "category";
  const numericXs = data.x_numeric
    ? naturalSorted([...new Set(data.traces.flatMap((t) => t.points.map((p) => p.x)).filter((x): x is number => typeof x === "number"))])
    : [];
  const ticks = time ? null : unitTicks(data.x, category ? categories : numericXs);
  return {
    data: traces,
    layout: {
      ...layout,
      boxmode: opts.view === "box" ? "group" : undefined,
      showlegend: traces.length > 1 || Boolean(data.group),
      // The legend lists the traces in the server's order (natural, or the one asked).
      legend: { ...(layout.legend as Record<string, unknown>), traceorder: "normal" },
      xaxis: axis(layout, "xaxis", {
        title: { text: data.x },
        type: xType,
        ...(category ? { categoryorder: "array", categoryarray: categories } : {}),
        ...(ticks ? { tickmode: "array", ...ticks } : {}),
      }),
      yaxis: axis(layout, "yaxis", { title: { text: yTitle(data) }, type: opts.logy ? "log" : "linear", rangemode: opts.logy ? undefined : "tozero" }),
    },
  };
}

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
