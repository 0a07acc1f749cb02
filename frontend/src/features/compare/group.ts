// Two groups side by side (fs version A vs B, say): each metric's median over the runs of each
// group, from one explore request per metric with x = the grouping dimension.
import type { Explore } from "../explore/api/get-explore";
import type { ExploreQuery } from "../explore/api/get-explore";

export type GroupCompareState = { workload: string; by: string; a: string; b: string; filter: string[] };

export type GroupCell = { median: number; n: number; p5: number; p95: number } | null;
export type GroupRow = { metric: string; unit: string | null; direction: string | null; a: GroupCell; b: GroupCell; diffPct: number | null; better: boolean | null };

export const DURABILITY_FACTS = ["fsync_policy", "o_direct", "sync_mount", "write_cache", "cold_method"] as const;

export function parseGroupCompare(params: URLSearchParams): GroupCompareState | null {
  const workload = params.get("workload") ?? "";
  const by = params.get("by") ?? "";
  if (!workload || !by) return null;
  return { workload, by, a: params.get("a") ?? "", b: params.get("b") ?? "", filter: params.getAll("filter").filter((f) => f.includes(":")) };
}

export function groupCompareSearch(state: GroupCompareState): URLSearchParams {
  const params = new URLSearchParams({ workload: state.workload, by: state.by, a: state.a, b: state.b });
  for (const f of state.filter) params.append("filter", f);
  return params;
}

/** One explore query per metric: x is the grouping dimension, restricted to the two values. */
export function groupQueries(state: GroupCompareState, metrics: string[]): ExploreQuery[] {
  const filter = [...state.filter.filter((f) => !f.startsWith(`${state.by}:`)), `${state.by}:${state.a}`, `${state.by}:${state.b}`];
  return metrics.map((metric) => ({ workload: state.workload, metric, x: state.by, filter }));
}

function cell(data: Explore, value: string): GroupCell {
  for (const trace of data.traces) {
    for (const p of trace.points) {
      if (String(p.x) === value) return { median: p.median, n: p.n, p5: p.p5, p95: p.p95 };
    }
  }
  return null;
}

export function groupRows(results: Explore[], a: string, b: string): GroupRow[] {
  return results
    .map((data) => {
      const ca = cell(data, a);
      const cb = cell(data, b);
      const diffPct = ca && cb && ca.median !== 0 ? ((cb.median - ca.median) / Math.abs(ca.median)) * 100 : null;
      const better = diffPct === null || !data.direction ? null : data.direction === "higher" ? diffPct > 0 : diffPct < 0;
      return { metric: data.metric, unit: data.unit, direction: data.direction, a: ca, b: cb, diffPct, better };
    })
    .filter((row) => row.a !== null || row.b !== null)
    .sort((x, y) => x.metric.localeCompare(y.metric));
}

/** The durability facts whose values differ between the groups, from explore x=fact, group=by. */
export function durabilityDifferences(byFact: Record<string, Explore | undefined>, a: string, b: string): { fact: string; a: string[]; b: string[] }[] {
  const out: { fact: string; a: string[]; b: string[] }[] = [];
  for (const fact of DURABILITY_FACTS) {
    const data = byFact[fact];
    if (!data) continue;
    const values = (group: string) =>
      [...new Set(data.traces.filter((t) => String(t.group) === group).flatMap((t) => t.points.map((p) => (p.x === null ? "not recorded" : String(p.x)))))].sort();
    const va = values(a);
    const vb = values(b);
    if (va.length > 0 && vb.length > 0 && va.join("|") !== vb.join("|")) out.push({ fact, a: va, b: vb });
  }
  return out;
}
