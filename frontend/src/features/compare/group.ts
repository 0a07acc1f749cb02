// Groups of runs (fs version 6.1 against 6.5 and 6.8, say), compared on the server series by
// series: this module holds the page's URL state and the words of the per-series summary.
import type { ApiQuery, Schemas } from "../../api/client";
import { formatPercent } from "../../lib/format";
import { parseMetrics } from "./diff";

export type GroupCompare = Schemas["GroupCompareRead"];
export type GroupCell = Schemas["GroupCell"];

export type GroupCompareState = {
  workload: string;
  by: string;
  values: string[];
  filter: string[];
  metric: string[];
  /** null: the server's default (the target, for environment dimensions) */
  pairIgnore: string[] | null;
  minEffect: number | null;
};

export function parseGroupCompare(params: URLSearchParams): GroupCompareState | null {
  const workload = params.get("workload") ?? "";
  const by = params.get("by") ?? "";
  if (!workload || !by) return null;
  // `a` and `b` are the links of the two-group page before several groups were possible.
  const values = [...params.getAll("value"), params.get("a") ?? "", params.get("b") ?? ""].filter((v, i, all) => v !== "" && all.indexOf(v) === i);
  // Repeated or comma-separated (`pair_ignore=agent,target`), as the API takes it.
  const ignore = params
    .getAll("pair_ignore")
    .flatMap((p) => p.split(","))
    .map((p) => p.trim())
    .filter(Boolean);
  const minEffect = Number.parseFloat(params.get("min_effect") ?? "");
  return {
    workload,
    by,
    values,
    filter: params.getAll("filter").filter((f) => f.includes(":")),
    metric: parseMetrics(params.getAll("metric")),
    pairIgnore: ignore.length > 0 ? ignore : null,
    minEffect: Number.isFinite(minEffect) ? minEffect : null,
  };
}

export function groupCompareSearch(state: GroupCompareState): URLSearchParams {
  const params = new URLSearchParams({ workload: state.workload, by: state.by });
  for (const v of state.values) params.append("value", v);
  for (const f of state.filter) params.append("filter", f);
  for (const m of state.metric) params.append("metric", m);
  for (const p of state.pairIgnore ?? []) params.append("pair_ignore", p);
  if (state.minEffect !== null) params.set("min_effect", String(state.minEffect));
  return params;
}

/** The API query of a state: the same names as the page's URL. */
export function groupCompareQuery(state: GroupCompareState): ApiQuery<"/compare/groups"> {
  return {
    workload: state.workload,
    by: state.by,
    value: state.values,
    filter: state.filter,
    metric: state.metric,
    pair_ignore: state.pairIgnore ?? undefined,
    min_effect: state.minEffect ?? undefined,
  };
}

/** Why a cell has no pair: no runs of its own, none in the baseline, or series that never meet
 * the baseline's (the one case a reader must act on: pair_ignore, or runs that differ). */
function unpairedWhy(cell: GroupCell, base: GroupCell | undefined): string {
  if (cell.runs === 0) return "no runs";
  if (base && base.runs === 0) return "no baseline runs to compare with";
  return "no series in both groups";
}

/** "−22 % median over 4 series, 4 of 4 agree" (the words a reader checks the colour against).
 * `base` is the baseline's cell of the same row, which says why an unpaired cell is. */
export function groupSummary(cell: GroupCell, base?: GroupCell): string {
  if (cell.runs === 0 || cell.pairs === 0) return unpairedWhy(cell, base);
  if (cell.verdict === "not_comparable") return `not comparable (durability): ${cell.not_comparable} of ${cell.pairs} series`;
  const change = `${formatPercent(cell.change_pct)} median over ${cell.pairs} series`;
  if (cell.tested === 0) return `${change}: not enough repetitions to test`;
  const untested = cell.pairs - cell.tested;
  return `${change}, ${cell.agree} of ${cell.pairs} agree${untested ? ` (${untested} too few repetitions)` : ""}`;
}

/** How many of a cell's pairs say what its verdict says: "2 of 2". */
export function verdictCount(cell: GroupCell): string {
  const count: Record<string, number> = {
    worse: cell.worse,
    better: cell.better,
    noise: cell.tested - cell.better - cell.worse,
    not_comparable: cell.not_comparable,
    mixed: cell.tested,
  };
  const n = cell.verdict ? count[cell.verdict] : undefined;
  return n === undefined ? `${cell.pairs} series` : `${n} of ${cell.pairs}`;
}

/** One subset's headline: "fsync=file: −19.0 %, worse, 2 of 2"; "fsync=none: within noise, 2 of 2";
 * "filesize=67108864: no runs" where this group has none of the subset (tmpfs writes only the
 * file that fits in memory). */
export function subsetSummary(dimension: string, value: string, cell: GroupCell, base?: GroupCell): string {
  const head = `${dimension}=${value}`;
  if (cell.runs === 0 || cell.pairs === 0) return `${head}: ${unpairedWhy(cell, base)}`;
  switch (cell.verdict) {
    case "worse":
    case "better":
    case "mixed":
      return `${head}: ${formatPercent(cell.change_pct)}, ${cell.verdict}, ${verdictCount(cell)}`;
    case "noise":
      return `${head}: within noise (${formatPercent(cell.change_pct)}), ${verdictCount(cell)}`;
    case "not_comparable":
      return `${head}: not comparable (durability), ${verdictCount(cell)}`;
    case "few":
      return `${head}: ${formatPercent(cell.change_pct)}, not enough repetitions to test`;
    default:
      return `${head}: no value`;
  }
}
