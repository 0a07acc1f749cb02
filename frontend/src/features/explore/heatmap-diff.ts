// Is a heatmap cell's change real? Judged as Compare judges (compare/stats.py): enough
// repetitions on both sides, an interval of the change that excludes zero, at least the minimum
// effect; and never across a durability difference. Otherwise the cell is neutral and says why.
import type { ExplorePoint } from "./api/get-explore";

/** Compare's defaults: the smallest change called better or worse, and the repetitions a side needs. */
export const MIN_EFFECT_PCT = 5;
export const MIN_REPETITIONS = 3;
/** Flags that make a side's numbers unfit to judge a change by. */
const UNFIT = ["busy", "short_phase"];

export type DiffKind = "change" | "noise" | "few" | "flagged" | "incomparable";

export type DiffCell = {
  kind: DiffKind;
  /** b against a, in percent */
  pct: number;
  /** why the cell is coloured or not, for the hover */
  note: string;
};

const DURABILITY_WORDS: Record<string, string> = { memory_backed: "memory-backed", no_flush: "no flush" };

function runs(p: ExplorePoint): string {
  return `${p.n} run${p.n === 1 ? "" : "s"}`;
}

function pct(v: number): string {
  return `${v >= 0 ? "+" : ""}${v.toFixed(1)} %`;
}

/** A side's interval of its median: the server's (median_low/high), else the p5–p95 spread (wider). */
function interval(p: ExplorePoint): [number, number] {
  return [p.median_low ?? p.p5, p.median_high ?? p.p95];
}

function durability(p: ExplorePoint): string {
  return [...(p.durability ?? [])].sort().join(",");
}

/** The verdict of cell b against baseline a, or null when there is no change to speak of (a is zero). */
export function classifyDiff(a: ExplorePoint, b: ExplorePoint, minEffect: number = MIN_EFFECT_PCT): DiffCell | null {
  if (a.median === 0 || !Number.isFinite(a.median) || !Number.isFinite(b.median)) return null;
  const change = ((b.median - a.median) / Math.abs(a.median)) * 100;
  if (durability(a) !== durability(b)) {
    const side = (p: ExplorePoint, name: string) => (p.durability ?? []).map((d) => DURABILITY_WORDS[d] ?? d).join(", ") || `not ${name}`;
    return { kind: "incomparable", pct: change, note: `not comparable (durability): a ${side(a, "memory-backed")}, b ${side(b, "memory-backed")}` };
  }
  const few = [a, b].find((p) => p.repetitions < MIN_REPETITIONS);
  if (few) return { kind: "few", pct: change, note: `${runs(few)}, ${few.repetitions} repetition${few.repetitions === 1 ? "" : "s"}: too few to judge` };
  const flagged = UNFIT.find((f) => a.flags.includes(f) || b.flags.includes(f));
  if (flagged) return { kind: "flagged", pct: change, note: `${flagged.replaceAll("_", " ")}: its numbers cannot tell a change from noise` };
  const [aLow, aHigh] = interval(a);
  const [bLow, bHigh] = interval(b);
  const low = ((bLow - aHigh) / Math.abs(a.median)) * 100;
  const high = ((bHigh - aLow) / Math.abs(a.median)) * 100;
  const range = `interval ${pct(low)} to ${pct(high)}`;
  if (!(low > 0 || high < 0)) return { kind: "noise", pct: change, note: `within noise: ${range} includes zero` };
  if (Math.abs(change) < minEffect) return { kind: "noise", pct: change, note: `within noise: smaller than ${minEffect} % (${range})` };
  return { kind: "change", pct: change, note: range };
}
