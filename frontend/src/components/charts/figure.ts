// The figure type the Plot wrapper draws, and the theme-dependent parts every chart shares.
import type { Theme } from "../../lib/theme";

export type PlotData = Record<string, unknown>;
/** Traces drawn coarser than their data (a band's envelope, ./spread-band.ts) redrawn for the x
 * range shown after a zoom (null: the whole range again): which traces, and their new x and y. */
export type Refine = (range: [number, number] | null) => { traces: number[]; x: unknown[][]; y: unknown[][] };
export type Figure = { data: PlotData[]; layout: Record<string, unknown>; refine?: Refine };

// Okabe-Ito: distinguishable with the common colour-vision deficiencies, on light and dark.
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#999999"];

export function colorAt(i: number): string {
  return PALETTE[i % PALETTE.length] ?? "#0072B2";
}

export function baseLayout(theme: Theme): Record<string, unknown> {
  const fg = theme === "dark" ? "#d8dee9" : "#1f2933";
  const grid = theme === "dark" ? "#3b4252" : "#e4e7eb";
  return {
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { color: fg, family: "system-ui, -apple-system, Segoe UI, sans-serif", size: 12 },
    margin: { l: 64, r: 16, t: 16, b: 56 },
    hovermode: "closest",
    hoverlabel: { namelength: -1 },
    legend: { orientation: "h", y: -0.18, bgcolor: "rgba(0,0,0,0)" },
    xaxis: { gridcolor: grid, zerolinecolor: grid, linecolor: grid, automargin: true },
    yaxis: { gridcolor: grid, zerolinecolor: grid, linecolor: grid, automargin: true },
  };
}

export function axis(layout: Record<string, unknown>, name: "xaxis" | "yaxis", extra: Record<string, unknown>): Record<string, unknown> {
  return { ...(layout[name] as Record<string, unknown>), ...extra };
}
