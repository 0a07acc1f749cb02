// What a click on an Explore point picks: its runs (newest first, as many as the server sent),
// the group and x it stands for, and how many runs it has in all.
import type { Explore } from "./api/get-explore";
import { groupName } from "./figures";

export type Picked = { group: string; x: unknown; runs: string[]; n: number };

/** The point at `curveNumber`/`pointNumber` of `data`; the runs come from the point's customdata
 * (the figure puts the run list at index 4, the newest run at 0). */
export function pickPoint(data: Explore | undefined, click: { customdata: unknown; curveNumber: number; pointNumber: number }): Picked {
  const custom = Array.isArray(click.customdata) ? (click.customdata as unknown[]) : [];
  const runs = Array.isArray(custom[4]) ? (custom[4] as string[]) : typeof custom[0] === "string" ? [custom[0]] : [];
  const trace = data?.traces[click.curveNumber];
  const point = trace?.points[click.pointNumber];
  return { group: groupName(trace?.group, data?.group), x: point?.x, runs, n: point?.n ?? runs.length };
}
