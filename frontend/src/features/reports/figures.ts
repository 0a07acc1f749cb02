// A block's figure from its data, with the same builders as its page (Explore, Heatmap, Series).
import type { Figure } from "../../components/charts/figure";
import type { Theme } from "../../lib/theme";
import { exploreFigure, heatmapOf } from "../explore";
import { seriesFigure, type SeriesPoints } from "../series";
import type { BlockData } from "./api/get-report-data";
import type { Block } from "./blocks";

export function blockFigure(block: Block, data: BlockData, theme: Theme): Figure | null {
  if (block.kind === "explore" && data.explore) {
    return exploreFigure(data.explore, { view: block.view ?? "lines", logx: Boolean(block.logx), logy: Boolean(block.logy), theme });
  }
  if (block.kind === "heatmap" && data.heatmap) {
    const state = {
      workload: block.workload,
      metric: block.metric,
      x: block.x,
      y: block.y,
      filter: block.filter ?? [],
      diff: block.diff ?? "",
      a: block.a ?? "",
      b: block.b ?? "",
    };
    return heatmapOf(data.heatmap, state, theme);
  }
  if (block.kind === "series" && data.series) return seriesFigure(data.series as SeriesPoints, theme);
  return null;
}
