import { describe, expect, it } from "vitest";
import { pairLabels } from "./SeriesBreakdown";

describe("pairLabels", () => {
  it("names each pair by what tells the pairs apart, parameters and labels included", () => {
    const keys = [
      { agent: "lab-1", target: "/mnt/a", parameters: { nfiles: 1000, threads: 1 }, labels: { mode: "c" } },
      { agent: "lab-1", target: "/mnt/b", parameters: { nfiles: 1000, threads: 4 }, labels: { mode: "c" } },
    ];
    expect(pairLabels(keys)).toEqual(["target=/mnt/a threads=1", "target=/mnt/b threads=4"]);
    expect(pairLabels([keys[0]!])).toEqual(["the one series"]);
  });
});
