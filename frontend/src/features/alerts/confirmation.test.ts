import { describe, expect, it } from "vitest";
import {
  changeWords,
  confirmationFigure,
  confirmingText,
  intervalText,
  levelWithUnit,
  median,
  signedChangeText,
  verdictText,
  withRounds,
  type Confirmation,
  type ConfirmationRun,
} from "./confirmation";

const run = (uuid: string, variant: string, samples: number[]): ConfirmationRun => ({ uuid, variant, samples, median: median(samples) });

function confirmation(overrides: Partial<Confirmation> = {}): Confirmation {
  return {
    job_id: 12,
    status: "succeeded",
    verdict: "different",
    mode: "baseline",
    note: null,
    rounds: 3,
    rounds_max: 6,
    runs: [
      run("c1", "candidate", [801, 799, 800]),
      run("b1", "baseline", [1000, 1002, 998]),
      run("c2", "candidate", [805, 802]),
      run("b2", "baseline", [1001, 999]),
      run("c3", "candidate", [798]),
      run("b3", "baseline", [1003]),
    ],
    candidate_median: 801,
    baseline_median: 1000,
    change_pct: -19.84,
    ci: [-22.1, -17.3],
    plan: {},
    ...overrides,
  };
}

describe("the verdict in words", () => {
  it("says how much slower a confirmed regression is, with its interval and rounds", () => {
    expect(verdictText(confirmation(), "higher")).toBe("Confirmed: 19.8 % slower (95 % interval 17–22 %) over 3 rounds");
    // Lower is better (seconds): a rise is the slowdown.
    expect(verdictText(confirmation({ change_pct: 12.04, ci: [9.5, 14.2], rounds: 1 }), "lower")).toBe(
      "Confirmed: 12.0 % slower (95 % interval 9.5–14 %) over 1 round",
    );
    expect(verdictText(confirmation({ change_pct: null, ci: null }), "higher")).toBe("Confirmed over 3 rounds");
  });

  it("says a re-run that matched the old level did not confirm it", () => {
    expect(verdictText(confirmation({ verdict: "same", change_pct: 0.4, ci: [-1.2, 1.8] }), "higher")).toBe("Not confirmed: the re-run matched the old level");
  });

  it("says why it could not tell: the budget, or the job's end", () => {
    expect(verdictText(confirmation({ verdict: "unknown", rounds: 6 }), "higher")).toBe("Could not confirm within 6 rounds");
    expect(verdictText(confirmation({ verdict: "unknown", status: "failed" }), "higher")).toBe("Could not confirm: the confirmation job failed");
    expect(verdictText(confirmation({ verdict: null, status: "expired" }), "higher")).toBe("Could not confirm: no agent took the confirmation job in time");
  });

  it("says where a confirmation under way stands", () => {
    expect(verdictText(confirmation({ verdict: null, status: "queued", rounds: 0 }), "higher")).toBe("Being confirmed: job #12 is waiting for its agent");
    expect(verdictText(confirmation({ verdict: null, status: "running", rounds: 2 }), "higher")).toBe("Being confirmed: job #12 is running round 3 of 6");
  });

  it("writes intervals as magnitudes on one side of zero, signed across it", () => {
    expect(intervalText([-22.1, -17.3])).toBe("17–22 %");
    expect(intervalText([17.3, 22.1])).toBe("17–22 %");
    expect(intervalText([-1.2, 1.84])).toBe("−1.2 to +1.8 %");
    expect(intervalText(null)).toBe("");
    expect(changeWords(5.25, "higher")).toBe("5.3 % faster");
    expect(signedChangeText(-19.84, [-22.13, -17.3])).toBe("−19.8 % (95 % interval −22.1 to −17.3 %)");
    expect(signedChangeText(0.44, null)).toBe("+0.4 %");
    expect(signedChangeText(null, null)).toBe("–");
    expect(levelWithUnit(999.8912, "ops/s")).toBe("999.89 ops/s");
    expect(levelWithUnit(null, "ops/s")).toBe("–");
  });
});

describe("the alerts list's line", () => {
  it("names the job and the round under way", () => {
    expect(confirmingText(confirmation({ verdict: null, status: "running", rounds: 1 }))).toBe("being confirmed by job #12 (round 2)");
    expect(confirmingText(confirmation({ verdict: null, status: "leased", rounds: 0 }))).toBe("being confirmed by job #12 (round 1)");
    // Never past the last round.
    expect(confirmingText(confirmation({ verdict: null, status: "running", rounds: 6 }))).toBe("being confirmed by job #12 (round 6)");
    expect(confirmingText(confirmation({ verdict: null, status: "queued", rounds: 0 }))).toBe("being confirmed by job #12 (waiting for its agent)");
    expect(confirmingText(null)).toBe("being confirmed");
  });
});

describe("rounds and the strip plot", () => {
  it("gives the k-th run of each variant round k", () => {
    expect(withRounds(confirmation().runs).map((r) => `${r.uuid}:${r.round}`)).toEqual(["c1:1", "b1:1", "c2:2", "b2:2", "c3:3", "b3:3"]);
    expect(withRounds([run("c1", "candidate", [1]), run("c2", "candidate", [2])]).map((r) => r.round)).toEqual([1, 2]);
  });

  it("takes the median of an odd or even count", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it("plots every repetition by round, each run's median, and both medians compared", () => {
    const fig = confirmationFigure(confirmation(), "ops/s", "light");
    const [candSamples, candMedians, baseSamples, baseMedians] = fig.data;
    expect(fig.data.map((t) => t.name)).toEqual([
      "candidate (new): repetitions",
      "candidate (new): run median",
      "baseline (old): repetitions",
      "baseline (old): run median",
      "candidate median (all rounds)",
      "baseline median (all rounds)",
    ]);
    expect(candSamples?.y).toEqual([801, 799, 800, 805, 802, 798]);
    expect(candSamples?.customdata).toEqual(["c1", "c1", "c1", "c2", "c2", "c3"]);
    expect(baseSamples?.y).toEqual([1000, 1002, 998, 1001, 999, 1003]);
    // Candidate left of each round's tick, baseline right; samples of a run spread a little.
    const cx = candSamples?.x as number[];
    expect(cx.slice(0, 3).every((x) => x > 0.8 && x < 0.95)).toBe(true);
    expect(cx[5]).toBeCloseTo(2.88);
    expect(candMedians?.x).toEqual([0.88, 1.88, 2.88]);
    expect(candMedians?.y).toEqual([800, 803.5, 798]);
    expect(baseMedians?.x).toEqual([1.12, 2.12, 3.12]);
    const levels = fig.data.slice(4);
    expect(levels.map((t) => [t.name, t.y, t.x])).toEqual([
      ["candidate median (all rounds)", [801, 801], [0.5, 3.5]],
      ["baseline median (all rounds)", [1000, 1000], [0.5, 3.5]],
    ]);
    const xaxis = fig.layout.xaxis as { tickvals: number[]; ticktext: string[] };
    expect(xaxis.tickvals).toEqual([1, 2, 3]);
    expect(xaxis.ticktext).toEqual(["round 1", "round 2", "round 3"]);
  });

  it("draws the history's median alone when only the candidate re-ran", () => {
    const fig = confirmationFigure(
      confirmation({ mode: "history", runs: [run("c1", "candidate", [1001, 999, 1000])], candidate_median: 1000, baseline_median: 998 }),
      "ops/s",
      "dark",
    );
    expect(fig.data.map((t) => t.name)).toEqual([
      "candidate (new): repetitions",
      "candidate (new): run median",
      "candidate median (all rounds)",
      "history median (before the change)",
    ]);
    expect(fig.data.slice(2).map((t) => (t.y as number[])[0])).toEqual([1000, 998]);
  });
});
