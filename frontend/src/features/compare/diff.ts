// How a compare cell looks: coloured only when the server judged the change real (its interval
// excludes zero and it is at least the minimum effect), stronger past LARGE_PCT; a change within
// the noise stays neutral, and one that cannot be tested (too few repetitions) says so.
import type { Schemas } from "../../api/client";
import { formatPercent } from "../../lib/format";
import type { CompareQuery } from "./api/get-compare";

export type Change = Schemas["ChangeRead"];
export type Verdict = Change["verdict"] | "mixed";
export type Tone = "base" | "noise" | "few" | "better" | "worse" | "much-better" | "much-worse" | "mixed" | "missing" | "incomparable";

export const LARGE_PCT = 10;

export const VERDICT_TEXT: Record<Verdict, string> = {
  better: "better",
  worse: "worse",
  noise: "within noise",
  few: "not enough repetitions",
  missing: "no value",
  mixed: "mixed",
  not_comparable: "not comparable (durability)",
};

export function verdictTone(verdict: Verdict | null | undefined, changePct: number | null | undefined, isBaseline = false): Tone {
  if (isBaseline) return "base";
  if (!verdict || verdict === "missing") return "missing";
  // Durability first: a memory-backed or no-flush side against a durable one is neither.
  if (verdict === "not_comparable") return "incomparable";
  if (verdict === "better" || verdict === "worse") {
    const large = changePct !== null && changePct !== undefined && Math.abs(changePct) >= LARGE_PCT;
    return large ? (`much-${verdict}` as Tone) : verdict;
  }
  return verdict;
}

/** "−20.3 % [−22.1 … −18.0 %]": the change with its 95 % interval when there is one; no figure
 * where the sides differ in durability (the figure is in the hover text). */
export function changeText(change: Pick<Change, "change_pct" | "ci_low_pct" | "ci_high_pct"> & { verdict?: Change["verdict"] }): string {
  if (change.verdict === "not_comparable") return "not comparable";
  const main = formatPercent(change.change_pct);
  if (change.ci_low_pct === null || change.ci_high_pct === null) return main;
  return `${main} [${formatPercent(change.ci_low_pct)} … ${formatPercent(change.ci_high_pct)}]`;
}

/** The hover text of a judged cell: what the verdict rests on. */
export function changeTitle(change: Change, minEffectPct: number): string {
  const n = `n = ${change.n_base} vs ${change.n} samples`;
  switch (change.verdict) {
    case "few":
      return `${formatPercent(change.change_pct)}, but ${n}: at least 3 repetitions a side are needed to tell a change from noise`;
    case "noise":
      return `${changeText(change)} (95 % interval), ${n}: the interval includes zero or the change is under ${minEffectPct} %`;
    case "missing":
      return "no value to compare";
    case "not_comparable":
      return `${change.reason ?? "not comparable (durability)"}; the difference (${formatPercent(change.change_pct)}) is the medium's, not better or worse`;
    default:
      return `${changeText(change)} (95 % interval), ${n}: ${change.verdict}, the interval excludes zero and the change is at least ${minEffectPct} %`;
  }
}

/** The compare page's URL holds the run uuids in order, the first being the baseline. */
export function parseRuns(value: string | null): string[] {
  if (!value) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of value.split(",")) {
    const id = part.trim();
    if (id && !seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** The runs page's URL (runs, metric, min_effect), or null when it names fewer than two runs. */
export function parseRunsCompare(params: URLSearchParams): CompareQuery | null {
  const runs = parseRuns(params.get("runs"));
  if (runs.length < 2) return null;
  const minEffect = Number.parseFloat(params.get("min_effect") ?? "");
  return { runs, metric: parseMetrics(params.getAll("metric")), minEffect: Number.isFinite(minEffect) ? minEffect : null };
}

export function runsCompareSearch(q: CompareQuery): URLSearchParams {
  const params = new URLSearchParams({ runs: q.runs.join(",") });
  for (const m of q.metric) params.append("metric", m);
  if (q.minEffect !== null) params.set("min_effect", String(q.minEffect));
  return params;
}

/** Metric names or globs, as typed ("*.seconds, create.ops_per_s") or from the URL. */
export function parseMetrics(values: string[]): string[] {
  const out: string[] = [];
  for (const v of values) for (const part of v.split(",")) if (part.trim() && !out.includes(part.trim())) out.push(part.trim());
  return out;
}

/** The trust marks' hover text: each flag with its reason. */
export function flagsTitle(flags: string[], reasons: Record<string, string>): string {
  return flags.map((f) => `${f.replace(/_/g, " ")}: ${reasons[f] ?? ""}`).join("\n");
}
