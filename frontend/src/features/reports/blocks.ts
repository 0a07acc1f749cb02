// A report's blocks: made from the page a reader is on (Explore, Heatmap, Compare), named for
// the editor, linked back to their page, moved about.
import type { Schemas } from "../../api/client";
import { groupCompareSearch, runsCompareSearch } from "../compare";
import { exploreLink, heatmapSearch, type ExploreState, type HeatmapState } from "../explore";
import { paths } from "../../lib/paths";

export type Block = Schemas["ReportRead"]["blocks"][number];
export type ExploreBlock = Schemas["ExploreBlock"];
export type HeatmapBlock = Schemas["HeatmapBlock"];
export type CompareBlock = Schemas["CompareBlock"];
export type SeriesBlock = Schemas["SeriesBlock"];
export type MarkdownBlock = Schemas["MarkdownBlock"];

/** Explore's current view as a block: its query with every setting (order, split, pool,
 * exact) and how it is drawn. */
export function exploreBlock(state: ExploreState): ExploreBlock {
  return {
    kind: "explore",
    title: null,
    empty_note: null,
    workload: state.workload,
    metric: state.metric,
    x: state.x || "time",
    group: state.group || null,
    filter: state.filter,
    view: state.view,
    logx: state.logx,
    logy: state.logy,
    order: state.order ?? [],
    split: state.split ?? [],
    pool: state.pool ?? [],
    exact: state.exact,
  };
}

export function heatmapBlock(state: HeatmapState): HeatmapBlock {
  return {
    kind: "heatmap",
    title: null,
    empty_note: null,
    workload: state.workload,
    metric: state.metric,
    x: state.x,
    y: state.y,
    filter: state.filter,
    diff: state.diff || null,
    a: state.a || null,
    b: state.b || null,
  };
}

export function compareRunsBlock(runs: string[], metric: string[], minEffect: number | null): CompareBlock {
  return {
    kind: "compare",
    title: null,
    empty_note: null,
    runs,
    workload: null,
    by: null,
    values: null,
    pair_ignore: null,
    metric,
    filter: [],
    min_effect: minEffect ?? 5,
  };
}

export type GroupsInput = {
  workload: string;
  by: string;
  values: string[];
  filter: string[];
  metric: string[];
  pairIgnore: string[] | null;
  minEffect: number | null;
};

export function compareGroupsBlock(state: GroupsInput): CompareBlock {
  return {
    kind: "compare",
    title: null,
    empty_note: null,
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
  return { kind: "markdown", title: null, empty_note: null, text };
}

function filters(filter: string[] | undefined): string {
  return filter && filter.length ? ` where ${filter.join(", ")}` : "";
}

/** Explore's settings other than its defaults, in words: "split by fsync, segsize pooled". */
export function exploreSettings(block: Pick<ExploreBlock, "order" | "split" | "pool" | "exact">): string {
  const parts: string[] = [];
  const split = block.split ?? [];
  if (split.includes("none")) parts.push(split.length > 1 ? `split only by ${split.filter((s) => s !== "none").join(", ")}` : "no split");
  else if (split.length) parts.push(`split by ${split.join(", ")}`);
  if (block.pool?.length) parts.push(`${block.pool.join(", ")} pooled`);
  if (block.order?.length) parts.push(`order ${block.order.join("; ")}`);
  if (block.exact) parts.push("exact");
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** A block in words, for the editor's list and a block's default caption. */
export function blockLabel(block: Block): string {
  switch (block.kind) {
    case "explore":
      return `${block.metric.split(",").join(", ")} against ${block.x ?? "time"}${block.group ? `, one line per ${block.group}` : ""}${filters(block.filter)}${exploreSettings(block)}`;
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

const TIME = "time:";

/**
 * The filters with every time range ending at the pin at the latest, as the server reads a
 * pinned report's blocks (reports/blocks.py pin_filters), so that the page opened shows the
 * same runs.
 */
export function pinFilters(filter: string[], pinnedAt: string | null | undefined): string[] {
  if (!pinnedAt) return filter;
  const others = filter.filter((f) => !f.startsWith(TIME));
  const ranges = filter.filter((f) => f.startsWith(TIME)).map((f) => f.slice(TIME.length));
  if (ranges.length === 0) return [...others, `${TIME}..${pinnedAt}`];
  const pin = Date.parse(pinnedAt);
  return [
    ...others,
    ...ranges.map((item) => {
      const at = item.indexOf("..");
      if (at < 0) return `${TIME}${item}`;
      const [start, end] = [item.slice(0, at), item.slice(at + 2)];
      const endAt = end ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(end) || !end.includes("T") ? end : `${end}Z`) : Number.NaN;
      return !end || (!Number.isNaN(endAt) && endAt > pin) ? `${TIME}${start}..${pinnedAt}` : `${TIME}${item}`;
    }),
  ];
}

/** Explore's state for an explore block: every setting it holds, a pin as the time filter. */
export function exploreStateOf(block: ExploreBlock, pinnedAt: string | null = null): ExploreState {
  return {
    workload: block.workload,
    metric: block.metric,
    x: block.x ?? "time",
    group: block.group ?? "",
    filter: pinFilters(block.filter ?? [], pinnedAt),
    view: block.view ?? "lines",
    logx: Boolean(block.logx),
    logy: Boolean(block.logy),
    exact: Boolean(block.exact),
    order: block.order ?? [],
    split: block.split ?? [],
    pool: block.pool ?? [],
  };
}

/**
 * The page the block's query comes from, to look further: every setting of the block, written by
 * that page's own URL builder, so that the page reads back what the block holds (blocks.test.ts
 * checks each key of each kind); a pinned report's pin goes along as the page's time filter.
 */
export function blockLink(block: Block, pinnedAt: string | null = null): string | null {
  switch (block.kind) {
    case "explore":
      return exploreLink(exploreStateOf(block, pinnedAt));
    case "heatmap": {
      const diff = block.diff && block.a && block.b ? { diff: block.diff, a: block.a, b: block.b } : { diff: "", a: "", b: "" };
      return paths.heatmap(
        heatmapSearch({ workload: block.workload, metric: block.metric, x: block.x, y: block.y, filter: pinFilters(block.filter ?? [], pinnedAt), ...diff }),
      );
    }
    case "compare": {
      const minEffect = block.min_effect ?? null;
      if (block.runs) return paths.compare(runsCompareSearch({ runs: block.runs, metric: block.metric ?? [], minEffect }));
      const filter = pinFilters(block.filter ?? [], pinnedAt);
      const state = {
        workload: block.workload ?? "",
        by: block.by ?? "",
        values: block.values ?? [],
        filter,
        metric: block.metric ?? [],
        pairIgnore: block.pair_ignore ?? null,
        minEffect,
      };
      return paths.compare(groupCompareSearch(state));
    }
    case "series": {
      // The series page offers windows of 1,000 and 10,000 (its default) newest points.
      return paths.series(block.series_id, { points: (block.limit ?? 1000) <= 1000 ? "1000" : undefined, until: pinnedAt });
    }
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
