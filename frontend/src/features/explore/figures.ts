// Pure figure builders for Explore: API data in, plotly figure out (the heatmap's: heatmap-figure.ts).
import { spreadErrorBars } from "../../components/charts/error-bars";
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import { mergedOrder, naturalSorted } from "../../lib/natural";
import type { Theme } from "../../lib/theme";
import { humanValue, unitOf } from "../../lib/units";
import type { Explore, ExplorePoint, ExploreTrace } from "./api/get-explore";
import type { ExploreView } from "./url-state";

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
