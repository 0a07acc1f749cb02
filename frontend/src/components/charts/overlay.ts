// Layout laid over a drawn figure by Plotly.relayout (Plot.tsx's overlay prop).

/** Layout keys laid over a figure's, for a plot so many pixels wide. */
export type Overlay = (width: number) => Record<string, unknown>;

/** Plotly.relayout's update from one overlay to the next: the next one's keys, and those the one
 * before set and the next does not, back to the figure's own (null: none). */
export function overlayUpdate(before: string[], next: Record<string, unknown>, layout: Record<string, unknown>): Record<string, unknown> {
  const update: Record<string, unknown> = {};
  for (const key of new Set([...before, ...Object.keys(next)])) update[key] = next[key] ?? layout[key] ?? null;
  return update;
}
