import { describe, expect, it } from "vitest";
import { alertsSearch, causeSummary, changeTone, confidenceText, isLikelyCause, parseAlertsState } from "./format";

describe("alerts URL state", () => {
  it("defaults to the open tab and round-trips filters in the API's names", () => {
    const state = parseAlertsState(new URLSearchParams("status=expected&workload=smallfile&agent=lab-1&label=fs_version:6.2&label=bad"));
    expect(state).toEqual({ status: "expected", workload: "smallfile", agent: "lab-1", label: ["fs_version:6.2"], cursor: "" });
    expect(alertsSearch(state)).toBe("status=expected&workload=smallfile&agent=lab-1&label=fs_version%3A6.2");
    expect(parseAlertsState(new URLSearchParams("status=nonsense")).status).toBe("open");
    expect(alertsSearch(parseAlertsState(new URLSearchParams()))).toBe("");
  });
});

describe("causes", () => {
  const cause = {
    "labels.fs_version": { before: "6.1", after: "6.2" },
    "environment.kernel": { before: "6.1.0", after: "6.5.0" },
    "environment.cores": { before: 2, after: 4 },
  };

  it("reads as one line without the group prefixes", () => {
    expect(causeSummary(cause, 2)).toBe("fs_version 6.1 → 6.2, kernel 6.1.0 → 6.5.0 (+1 more)");
    expect(causeSummary(null)).toBe("");
  });

  it("marks the differences the detector named", () => {
    expect(isLikelyCause(cause, "labels", "fs_version")).toBe(true);
    expect(isLikelyCause(cause, "parameters", "fs_version")).toBe(false);
    expect(isLikelyCause(null, "labels", "fs_version")).toBe(false);
  });
});

describe("change tone", () => {
  it("is red for regressions and green for improvements, darker from 10 %", () => {
    expect(changeTone("regression", -20)).toBe("much-worse");
    expect(changeTone("regression", 5)).toBe("worse");
    expect(changeTone("improvement", 12)).toBe("much-better");
    expect(changeTone("improvement", null)).toBe("better");
  });
});

describe("confidence", () => {
  it("never rounds up to certainty", () => {
    expect(confidenceText(0.95)).toBe("95 %");
    expect(confidenceText(0.99991)).toBe("> 99.9 %");
  });
});
