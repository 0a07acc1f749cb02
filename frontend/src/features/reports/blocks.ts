// A report's blocks: made from the page a reader is on (Explore, Heatmap, Compare), named for
// the editor, linked back to their page, moved about.
import type { Schemas } from "../../api/client";
import { exploreLink, type ExploreState, type HeatmapState } from "../explore";

export type Block = Schemas["ReportRead"]["blocks"][number];
export type ExploreBlock = Schemas["ExploreBlock"];
export type HeatmapBlock = Schemas["HeatmapBlock"];
export type CompareBlock = Schemas["CompareBlock"];
export type SeriesBlock = Schemas["SeriesBlock"];
export type MarkdownBlock = Schemas["MarkdownBlock"];

/** Explore's current view as a block: its query and how it is drawn. */
export function exploreBlock(state: ExploreState): ExploreBlock {
  return {
    kind: "explore",
    title: null,
    workload: state.workload,
    metric: state.metric,
    x: state.x || "time",
    group: state.group || null,
    filter: state.filter,
    view: state.view,
    logx: state.logx,
    logy: state.logy,
  };
}

export function heatmapBlock(state: HeatmapState): HeatmapBlock {
  return { kind: "heatmap", title: null, workload: state.workload, metric: state.metric, x: state.x, y: state.y, filter: state.filter, diff: state.diff || null, a: state.a || null, b: state.b || null };
}

export function compareRunsBlock(runs: string[], metric: string[], minEffect: number | null): CompareBlock {
  return { kind: "compare", title: null, runs, workload: null, by: null, values: null, pair_ignore: null, metric, filter: [], min_effect: minEffect ?? 5 };
}

export type GroupsInput = { workload: string; by: string; values: string[]; filter: string[]; metric: string[]; pairIgnore: string[] | null; minEffect: number | null };

export function compareGroupsBlock(state: GroupsInput): CompareBlock {
  return {
    kind: "compare",
    title: null,
    runs: null,
    workload: state.workload,
    by: state.by,
    values: state.values,
    filter: state.filter,
    metric: state.metric,
    pair_ignore: state.pairIgnore,
    min_effect: state.minEffect ?? 5,
  };
}

export function markdownBlock(text: string): MarkdownBlock {
  return { kind: "markdown", title: null, text };
}

function filters(filter: string[] | undefined): string {
  return filter && filter.length ? ` where ${filter.join(", ")}` : "";
}

/** A block in words, for the editor's list and a block's default caption. */
export function blockLabel(block: Block): string {
  switch (block.kind) {
    case "explore":
      return `${block.metric.split(",").join(", ")} against ${block.x ?? "time"}${block.group ? `, one line per ${block.group}` : ""}${filters(block.filter)}`;
    case "heatmap":
      return `${block.metric} over ${block.x} × ${block.y}${block.diff ? `, ${block.b} against ${block.a}` : ""}${filters(block.filter)}`;
    case "compare":
      if (block.runs) return `${block.runs.length} runs side by side${block.metric?.length ? ` (${block.metric.join(", ")})` : ""}`;
      return `${block.workload} by ${block.by}: ${(block.values ?? []).join(" vs ")}${block.metric?.length ? ` (${block.metric.join(", ")})` : ""}${filters(block.filter)}`;
    case "series":
      return `series ${block.series_id}`;
    case "markdown":
      return block.text.split("\n")[0]?.slice(0, 80) || "text";
  }
}

/** The page the block's query comes from, to look further. */
export function blockLink(block: Block): string | null {
  switch (block.kind) {
    case "explore":
      return exploreLink({ workload: block.workload, metric: block.metric, x: block.x ?? "time", group: block.group ?? "", filter: block.filter ?? [], view: block.view ?? "lines", logx: Boolean(block.logx), logy: Boolean(block.logy) });
    case "heatmap": {
      const p = new URLSearchParams({ workload: block.workload, metric: block.metric, x: block.x, y: block.y });
      for (const f of block.filter ?? []) p.append("filter", f);
      if (block.diff && block.a && block.b) {
        p.set("diff", block.diff);
        p.set("a", block.a);
        p.set("b", block.b);
      }
      return `/heatmap?${p}`;
    }
    case "compare": {
      const p = new URLSearchParams();
      if (block.runs) p.set("runs", block.runs.join(","));
      else {
        p.set("workload", block.workload ?? "");
        p.set("by", block.by ?? "");
        for (const v of block.values ?? []) p.append("value", v);
        for (const f of block.filter ?? []) p.append("filter", f);
      }
      for (const m of block.metric ?? []) p.append("metric", m);
      return `/compare?${p}`;
    }
    case "series":
      return `/series/${block.series_id}`;
    case "markdown":
      return null;
  }
}

export function moveBlock<T>(blocks: T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= blocks.length || to < 0 || to >= blocks.length) return blocks;
  const next = [...blocks];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** A slug from a title: lower-case words joined by dashes, as the API accepts. */
export function slugify(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return slug || "report";
}
