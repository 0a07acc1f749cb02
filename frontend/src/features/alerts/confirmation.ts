// Pure helpers of an alert's confirmation (the re-run of a regression before it alerts): its
// verdict in words, the rounds its runs belong to, the list's one-line state, and the strip plot.
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import { formatNumber, plural } from "../../lib/format";
import type { Theme } from "../../lib/theme";
import type { Schemas } from "../../api/client";

export type Confirmation = Schemas["ConfirmationRead"];
export type ConfirmationRun = Schemas["ConfirmationRun"];

/** A run of the confirmation with the round it belongs to (1 for the first). */
export type RoundRun = ConfirmationRun & { round: number };

const HELD = new Set(["leased", "running"]);
const ENDED: Record<string, string> = {
  failed: "the confirmation job failed",
  expired: "no agent took the confirmation job in time",
  cancelled: "the confirmation job was cancelled",
};

/** One decimal below 10 %, whole numbers from there (an interval's ends). */
function pct(value: number): string {
  return value.toFixed(Math.abs(value) < 10 ? 1 : 0);
}

/** `17–22 %`: an interval of changes that lie on one side of zero, as magnitudes, low to high;
 * `−1.2 to +1.8 %` when it straddles zero. */
export function intervalText(ci: readonly number[] | null | undefined): string {
  if (!ci || ci.length !== 2) return "";
  const [lo, hi] = [Math.min(ci[0] ?? 0, ci[1] ?? 0), Math.max(ci[0] ?? 0, ci[1] ?? 0)];
  if (lo >= 0 || hi <= 0) {
    const [a, b] = [Math.abs(lo), Math.abs(hi)].sort((x, y) => x - y) as [number, number];
    return `${pct(a)}–${pct(b)} %`;
  }
  const signed = (v: number) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${pct(Math.abs(v))}`;
  return `${signed(lo)} to ${signed(hi)} %`;
}

/** Whether a change of `changePct` % is for the worse in a series whose better direction is `direction`. */
export function isWorse(changePct: number, direction: string): boolean {
  return direction === "lower" ? changePct > 0 : changePct < 0;
}

/** `19.8 % slower` (or faster): the change's size and which way it goes for this series. */
export function changeWords(changePct: number, direction: string): string {
  return `${Math.abs(changePct).toFixed(1)} % ${isWorse(changePct, direction) ? "slower" : "faster"}`;
}

/** The verdict in words: the headline of the alert page's Confirmation panel. */
export function verdictText(c: Confirmation, direction: string): string {
  if (c.verdict === "different") {
    const rounds = `over ${plural(c.rounds, "round")}`;
    if (c.change_pct === null) return `Confirmed ${rounds}`;
    const ci = intervalText(c.ci);
    return `Confirmed: ${changeWords(c.change_pct, direction)}${ci ? ` (95 % interval ${ci})` : ""} ${rounds}`;
  }
  if (c.verdict === "same") return "Not confirmed: the re-run matched the old level";
  if (c.verdict === "unknown") {
    const why = ENDED[c.status];
    return why ? `Could not confirm: ${why}` : `Could not confirm within ${plural(c.rounds_max, "round")}`;
  }
  const why = ENDED[c.status];
  if (why) return `Could not confirm: ${why}`;
  return `Being confirmed: ${progressText(c)}`;
}

/** Where a confirmation without a verdict stands: queued, or the round under way. */
export function progressText(c: Confirmation): string {
  if (c.status === "queued") return `job #${c.job_id} is waiting for its agent`;
  if (HELD.has(c.status)) return `job #${c.job_id} is running round ${currentRound(c)} of ${c.rounds_max}`;
  return `job #${c.job_id} is ${c.status}`;
}

/** The round under way: the one after the rounds reported, at most the last one. */
export function currentRound(c: Confirmation): number {
  return Math.min(c.rounds + 1, Math.max(c.rounds_max, 1));
}

/** The alerts list's line for an alert in status `confirming`. */
export function confirmingText(c: Confirmation | null | undefined): string {
  if (!c) return "being confirmed";
  if (c.status === "queued") return `being confirmed by job #${c.job_id} (waiting for its agent)`;
  if (HELD.has(c.status)) return `being confirmed by job #${c.job_id} (round ${currentRound(c)})`;
  return `being confirmed by job #${c.job_id} (${c.status})`;
}

/** Each run with its round: a round runs every variant once, in the plan's order, so the k-th run
 * of a variant (oldest first, as the API lists them) belongs to round k. */
export function withRounds(runs: readonly ConfirmationRun[]): RoundRun[] {
  const seen = new Map<string, number>();
  return runs.map((run) => {
    const round = (seen.get(run.variant) ?? 0) + 1;
    seen.set(run.variant, round);
    return { ...run, round };
  });
}

/** The median of some numbers (the API's medians are checked against it in tests). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? null) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export const VARIANT_LABEL: Record<string, string> = { candidate: "candidate (new)", baseline: "baseline (old)" };
const VARIANT_COLOR: Record<string, string> = { candidate: "#D55E00", baseline: colorAt(0) };
// Side by side within a round: the candidate left of the round's tick, the baseline right.
const OFFSET: Record<string, number> = { candidate: -0.12, baseline: 0.12 };

/** A level across every round, with its name in the legend. */
function level(name: string, y: number, rounds: number, color: string, dash: string, unit: string): PlotData {
  return {
    type: "scatter",
    mode: "lines",
    name,
    x: [0.5, rounds + 0.5],
    y: [y, y],
    line: { color, width: 1.5, dash },
    hovertemplate: `${name}<br>%{y:.5g} ${unit}<extra></extra>`,
  };
}

/** Strip plot: every repetition of every confirmation run by round (candidate and baseline side
 * by side), each run's median as a bar across its samples, and the medians the test compared as
 * lines (the baseline's is the history before the change when only the candidate re-ran). */
export function confirmationFigure(c: Confirmation, unit: string, theme: Theme): Figure {
  const layout = baseLayout(theme);
  const runs = withRounds(c.runs);
  const variants = [...new Set(runs.map((r) => r.variant))];
  const data: PlotData[] = [];
  for (const variant of variants) {
    const mine = runs.filter((r) => r.variant === variant);
    const color = VARIANT_COLOR[variant] ?? colorAt(4);
    const dx = OFFSET[variant] ?? 0;
    const x: number[] = [];
    const y: number[] = [];
    const ids: string[] = [];
    for (const run of mine) {
      const values = run.samples.length ? run.samples : run.median !== null ? [run.median] : [];
      values.forEach((v, i) => {
        // A little spread within a run so equal samples stay visible.
        x.push(run.round + dx + (values.length > 1 ? (i / (values.length - 1) - 0.5) * 0.08 : 0));
        y.push(v);
        ids.push(run.uuid);
      });
    }
    data.push({
      type: "scatter",
      mode: "markers",
      name: `${VARIANT_LABEL[variant] ?? variant}: repetitions`,
      x,
      y,
      customdata: ids,
      marker: { color, size: 7, opacity: 0.75 },
      hovertemplate: `${variant} · round %{x:.0f}<br>%{y:.4g} ${unit}<br>run %{customdata}<extra></extra>`,
    });
    data.push({
      type: "scatter",
      mode: "markers",
      name: `${VARIANT_LABEL[variant] ?? variant}: run median`,
      x: mine.map((r) => r.round + dx),
      y: mine.map((r) => r.median),
      customdata: mine.map((r) => r.uuid),
      marker: { color, size: 18, symbol: "line-ew-open", line: { color, width: 3 } },
      hovertemplate: `${variant} · round %{x:.0f}<br>median %{y:.4g} ${unit}<br>run %{customdata}<extra></extra>`,
    });
  }
  const rounds = Math.max(1, ...runs.map((r) => r.round));
  if (c.candidate_median !== null) {
    data.push(level("candidate median (all rounds)", c.candidate_median, rounds, VARIANT_COLOR.candidate ?? colorAt(3), "dot", unit));
  }
  if (c.baseline_median !== null) {
    const name = c.mode === "baseline" ? "baseline median (all rounds)" : "history median (before the change)";
    data.push(level(name, c.baseline_median, rounds, VARIANT_COLOR.baseline ?? colorAt(0), "dash", unit));
  }
  const ticks = Array.from({ length: rounds }, (_, i) => i + 1);
  return {
    data,
    layout: {
      ...layout,
      showlegend: true,
      xaxis: axis(layout, "xaxis", {
        tickmode: "array",
        tickvals: ticks,
        ticktext: ticks.map((k) => `round ${k}`),
        range: [0.5, rounds + 0.5],
        zeroline: false,
      }),
      yaxis: axis(layout, "yaxis", { title: { text: unit } }),
    },
  };
}

/** `−19.8 % (95 % interval −22.1 to −17.3 %)`: the change as the test measured it, signed. */
export function signedChangeText(changePct: number | null | undefined, ci: readonly number[] | null | undefined): string {
  if (changePct === null || changePct === undefined) return "–";
  const signed = (v: number) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${Math.abs(v).toFixed(1)}`;
  const interval = ci && ci.length === 2 ? ` (95 % interval ${signed(Math.min(ci[0] ?? 0, ci[1] ?? 0))} to ${signed(Math.max(ci[0] ?? 0, ci[1] ?? 0))} %)` : "";
  return `${signed(changePct)} %${interval}`;
}

/** `999.89 ops/s` for the panel's medians (five significant digits: a change of a few tenths
 * of a percent stays visible). */
export function levelWithUnit(value: number | null | undefined, unit: string): string {
  return value === null || value === undefined ? "–" : `${formatNumber(value, 5)} ${unit}`;
}
