import { describe, expect, it } from "vitest";
import { changeText, changeTitle, flagsTitle, parseMetrics, parseRuns, verdictTone } from "./diff";

const change = (verdict: "better" | "worse" | "noise" | "few" | "missing", pct: number | null, lo: number | null = null, hi: number | null = null) => ({
  verdict,
  change_pct: pct,
  ci_low_pct: lo,
  ci_high_pct: hi,
  n_base: 3,
  n: verdict === "few" ? 1 : 3,
});

describe("verdictTone", () => {
  it("colours only what the server judged real, stronger past 10 %", () => {
    expect(verdictTone(null, null, true)).toBe("base");
    expect(verdictTone("better", 6)).toBe("better");
    expect(verdictTone("better", -25)).toBe("much-better"); // seconds fell: lower is better
    expect(verdictTone("worse", -5.5)).toBe("worse");
    expect(verdictTone("worse", 40)).toBe("much-worse");
  });

  it("leaves a large change within noise neutral, and says when it cannot tell", () => {
    expect(verdictTone("noise", -14.6)).toBe("noise");
    expect(verdictTone("few", 300)).toBe("few");
    expect(verdictTone("missing", null)).toBe("missing");
    expect(verdictTone(undefined, 3)).toBe("missing");
    expect(verdictTone("mixed", 3)).toBe("mixed");
  });
});

describe("change texts", () => {
  it("shows the interval and n, and why", () => {
    expect(changeText(change("worse", -20.3, -22.1, -18))).toBe("-20 % [-22 % … -18 %]");
    expect(changeText(change("few", 300))).toBe("+300 %");
    expect(changeTitle(change("noise", -14.6, -38, 76.5), 5)).toContain("n = 3 vs 3");
    expect(changeTitle(change("few", 300), 5)).toContain("at least 3 repetitions");
    expect(flagsTitle(["short_phase"], { short_phase: "too short" })).toBe("short phase: too short");
  });
});

describe("parsing", () => {
  it("splits, trims and de-duplicates runs, keeping the baseline first", () => {
    expect(parseRuns("b, a,,b ,c")).toEqual(["b", "a", "c"]);
    expect(parseRuns(null)).toEqual([]);
  });

  it("reads metrics and globs, comma-separated or repeated", () => {
    expect(parseMetrics(["*.seconds, create.ops_per_s", "", "*.seconds"])).toEqual(["*.seconds", "create.ops_per_s"]);
  });
});
