import { describe, expect, it } from "vitest";
import { diffTone, parseRuns } from "./diff";

describe("diffTone", () => {
  it("colours by the server's verdict, stronger past 10 %", () => {
    expect(diffTone(null, null, true)).toBe("base");
    expect(diffTone(5, true)).toBe("better");
    expect(diffTone(-25, true)).toBe("much-better"); // e.g. seconds fell: lower is better
    expect(diffTone(-5, false)).toBe("worse");
    expect(diffTone(40, false)).toBe("much-worse");
  });

  it("calls small changes and unknown verdicts the same, and missing values missing", () => {
    expect(diffTone(1.5, true)).toBe("same");
    expect(diffTone(-1.9, false)).toBe("same");
    expect(diffTone(30, null)).toBe("same");
    expect(diffTone(null, null)).toBe("missing");
    expect(diffTone(Number.NaN, true)).toBe("missing");
  });
});

describe("parseRuns", () => {
  it("splits, trims and de-duplicates, keeping the baseline first", () => {
    expect(parseRuns("b, a,,b ,c")).toEqual(["b", "a", "c"]);
    expect(parseRuns(null)).toEqual([]);
  });
});
