// Explore's and Heatmap's state lives in the URL, in the API's own names, so a plot is a link:
// /explore?workload=partialread&metric=read.mb_per_s&x=k&group=version&filter=segsize:128k&order=version:*,trunk
import type { ExploreQuery } from "./api/get-explore";
import { paths } from "../../lib/paths";

export type ExploreView = "lines" | "box" | "points";

export type ExploreState = {
  workload: string;
  metric: string;
  x: string;
  group: string;
  filter: string[];
  view: ExploreView;
  logx: boolean;
  logy: boolean;
  /** exact medians and percentiles however large the plot (the server sketches large ones) */
  exact: boolean;
  /** `dimension:v1,v2,*`: an order of a dimension's values other than the natural one (the API's) */
  order?: string[];
  /** dimensions to split traces by besides the server's default split ("none": no default split) */
  split?: string[];
  /** parameters and durability facts to leave pooled instead of split */
  pool?: string[];
};

export type HeatmapState = {
  workload: string;
  metric: string;
  x: string;
  y: string;
  filter: string[];
  /** a dimension whose two values are compared cell by cell, e.g. version */
  diff: string;
  a: string;
  b: string;
};

const VIEWS: readonly ExploreView[] = ["lines", "box", "points"];

/** group=metric: one trace per metric, the metrics comma-separated in `metric` (the API's form). */
export const BY_METRIC = "metric";

/** The metrics of a state: several only when grouped by metric. */
export function metricList(metric: string): string[] {
  return [
    ...new Set(
      metric
        .split(",")
        .map((m) => m.trim())
        .filter((m) => m !== ""),
    ),
  ];
}

/** A change of group that keeps the state meaningful: leaving group=metric keeps its first metric. */
export function withGroup(state: ExploreState, group: string): Partial<ExploreState> {
  if (group === BY_METRIC || state.group !== BY_METRIC) return { group };
  return { group, metric: metricList(state.metric)[0] ?? "" };
}

function flag(value: string | null): boolean {
  return value === "1" || value === "true";
}

function filters(params: URLSearchParams): string[] {
  return params
    .getAll("filter")
    .map((f) => f.trim())
    .filter((f) => /^[^:]+:.*$/.test(f));
}

export function parseExploreState(params: URLSearchParams): ExploreState {
  const view = params.get("view") ?? "lines";
  const group = params.get("group") ?? "";
  // Several metrics, repeated or comma-separated, make one plot only with group=metric.
  const metrics = metricList(params.getAll("metric").join(","));
  return {
    workload: params.get("workload") ?? "",
    metric: (group === BY_METRIC ? metrics : metrics.slice(0, 1)).join(","),
    x: params.get("x") || "time",
    group,
    filter: filters(params),
    view: (VIEWS as readonly string[]).includes(view) ? (view as ExploreView) : "lines",
    logx: flag(params.get("logx")),
    logy: flag(params.get("logy")),
    exact: flag(params.get("exact")),
    order: params
      .getAll("order")
      .map((o) => o.trim())
      .filter((o) => /^[^:]+:.+$/.test(o)),
    // Only when asked: a plain link's state stays what it was.
    ...(params.has("split") ? { split: names(params, "split") } : {}),
    ...(params.has("pool") ? { pool: names(params, "pool") } : {}),
  };
}

function names(params: URLSearchParams, key: string): string[] {
  return [
    ...new Set(
      params
        .getAll(key)
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    ),
  ];
}

/** The URL query for a state; defaults are left out so links stay short. */
export function exploreSearch(state: ExploreState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.workload) params.set("workload", state.workload);
  if (state.metric) params.set("metric", state.metric);
  if (state.x && state.x !== "time") params.set("x", state.x);
  if (state.group) params.set("group", state.group);
  for (const f of state.filter) params.append("filter", f);
  if (state.view !== "lines") params.set("view", state.view);
  if (state.logx) params.set("logx", "1");
  if (state.logy) params.set("logy", "1");
  if (state.exact) params.set("exact", "1");
  for (const o of state.order ?? []) params.append("order", o);
  for (const name of state.split ?? []) params.append("split", name);
  for (const name of state.pool ?? []) params.append("pool", name);
  return params;
}

/** A link to Explore with these settings and the defaults for the rest. */
export function exploreLink(settings: Partial<ExploreState>): string {
  return paths.explore(exploreSearch({ ...parseExploreState(new URLSearchParams()), ...settings }));
}

/** What to ask the API for, or null while workload or metric is missing. */
export function exploreQuery(state: ExploreState): ExploreQuery | null {
  if (!state.workload || !state.metric) return null;
  // The metrics go as the page's URL has them: one value, comma-separated with group=metric.
  const query: ExploreQuery = { workload: state.workload, metric: [state.metric], x: state.x || "time", filter: state.filter };
  if (state.group) query.group = state.group;
  if (state.exact) query.exact = true;
  if (state.order?.length) query.order = state.order;
  if (state.split?.length) query.split = state.split;
  if (state.pool?.length) query.pool = state.pool;
  return query;
}

export function parseHeatmapState(params: URLSearchParams): HeatmapState {
  return {
    workload: params.get("workload") ?? "",
    metric: params.get("metric") ?? "",
    x: params.get("x") ?? "",
    y: params.get("y") ?? "",
    filter: filters(params),
    diff: params.get("diff") ?? "",
    a: params.get("a") ?? "",
    b: params.get("b") ?? "",
  };
}

export function heatmapSearch(state: HeatmapState): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ["workload", "metric", "x", "y"] as const) if (state[key]) params.set(key, state[key]);
  for (const f of state.filter) params.append("filter", f);
  for (const key of ["diff", "a", "b"] as const) if (state[key]) params.set(key, state[key]);
  return params;
}

/** The explore requests behind a heatmap: one grid, or two (a and b) when a difference is asked. */
export function heatmapQueries(state: HeatmapState): ExploreQuery[] {
  if (!state.workload || !state.metric || !state.x || !state.y) return [];
  const base = { workload: state.workload, metric: [state.metric], x: state.x, group: state.y };
  const others = state.diff ? state.filter.filter((f) => !f.startsWith(`${state.diff}:`)) : state.filter;
  if (state.diff && state.a && state.b) {
    return [
      { ...base, filter: [...others, `${state.diff}:${state.a}`] },
      { ...base, filter: [...others, `${state.diff}:${state.b}`] },
    ];
  }
  return [{ ...base, filter: state.filter }];
}

/** From an Explore view to the heatmap of the same metric (x stays, the group becomes y). */
export function heatmapFromExplore(state: ExploreState): HeatmapState {
  const byMetric = state.group === BY_METRIC;
  return {
    workload: state.workload,
    metric: metricList(state.metric)[0] ?? "",
    x: state.x === "time" ? "" : state.x,
    y: byMetric ? "" : state.group,
    filter: state.filter,
    diff: "",
    a: "",
    b: "",
  };
}

export function splitFilter(filter: string): [string, string] {
  const i = filter.indexOf(":");
  return i < 0 ? [filter, ""] : [filter.slice(0, i), filter.slice(i + 1)];
}

/** A query string with sorted keys and the default x left out, to tell whether two ask the same. */
export function canonicalSearch(search: string): string {
  const params = new URLSearchParams(search);
  if (params.get("x") === "time") params.delete("x");
  params.sort();
  return params.toString();
}
