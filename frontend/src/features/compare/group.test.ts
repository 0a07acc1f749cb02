import { describe, expect, it } from "vitest";
import { groupCompareQuery, groupCompareSearch, groupSummary, parseGroupCompare, subsetSummary, type GroupCell } from "./group";

const cell = (patch: Partial<GroupCell>): GroupCell => ({
  value: 1,
  series: 4,
  runs: 8,
  samples: 24,
  flags: [],
  change_pct: -22.4,
  pairs: 4,
  tested: 4,
  agree: 4,
  better: 0,
  worse: 4,
  lowest_pct: -23,
  highest_pct: -21,
  verdict: "worse",
  not_comparable: 0,
  reason: null,
  ...patch,
});

describe("group compare state", () => {
  it("reads several values, filters, metrics and the pairing override from the URL", () => {
    const state = parseGroupCompare(
      new URLSearchParams("workload=w&by=fs_version&value=6.1&value=6.5&value=6.8&filter=agent:x&metric=*.seconds&pair_ignore=target&min_effect=3"),
    )!;
    expect(state).toEqual({
      workload: "w",
      by: "fs_version",
      values: ["6.1", "6.5", "6.8"],
      filter: ["agent:x"],
      metric: ["*.seconds"],
      pairIgnore: ["target"],
      minEffect: 3,
    });
    expect(parseGroupCompare(groupCompareSearch(state))).toEqual(state);
    expect(groupCompareQuery(state)).toMatchObject({ value: ["6.1", "6.5", "6.8"], pair_ignore: ["target"], min_effect: 3 });
    expect(parseGroupCompare(new URLSearchParams("workload=w"))).toBeNull();
  });

  it("still opens the two-group links (a, b)", () => {
    const state = parseGroupCompare(new URLSearchParams("workload=w&by=server&a=safe&b=unsafe"))!;
    expect(state.values).toEqual(["safe", "unsafe"]);
    expect(state.pairIgnore).toBeNull();
    expect(groupCompareQuery(state).pair_ignore).toBeUndefined();
  });
});

describe("groupSummary", () => {
  it("says the median change, over how many series, and how many agree", () => {
    expect(groupSummary(cell({}))).toBe("-22 % median over 4 series, 4 of 4 agree");
    expect(groupSummary(cell({ pairs: 1, tested: 1, agree: 1 }))).toBe("-22 % median over 1 series, 1 of 1 agree");
    expect(groupSummary(cell({ tested: 3, agree: 2 }))).toBe("-22 % median over 4 series, 2 of 4 agree (1 too few repetitions)");
    expect(groupSummary(cell({ tested: 0, agree: 0 }))).toBe("-22 % median over 4 series: not enough repetitions to test");
    expect(groupSummary(cell({ pairs: 0 }))).toBe("no series in both groups");
    // A group without runs of the metric: nothing to pair, and the table says that, not more.
    expect(groupSummary(cell({ pairs: 0, runs: 0, series: 0, value: null }))).toBe("no runs");
    // Runs here but none of the metric in the baseline (a reference column's own row): said so,
    // not "no series in both groups", which is kept for series that never meet.
    const none = cell({ pairs: 0, runs: 0, series: 0, value: null });
    expect(groupSummary(cell({ pairs: 0 }), none)).toBe("no baseline runs to compare with");
    expect(groupSummary(cell({ pairs: 0 }), cell({}))).toBe("no series in both groups");
    expect(groupSummary(none, none)).toBe("no runs");
  });
});

describe("subsetSummary", () => {
  it("gives each subset its change, verdict and how many series say so", () => {
    expect(subsetSummary("fsync", "file", cell({ change_pct: -19, pairs: 2, tested: 2, worse: 2 }))).toBe("fsync=file: -19 %, worse, 2 of 2");
    expect(subsetSummary("fsync", "none", cell({ change_pct: 0.4, pairs: 2, tested: 2, worse: 0, agree: 0, verdict: "noise" }))).toBe(
      "fsync=none: within noise (+0.4 %), 2 of 2",
    );
    expect(subsetSummary("fs", "tmpfs", cell({ pairs: 2, tested: 0, worse: 0, not_comparable: 2, verdict: "not_comparable" }))).toBe(
      "fs=tmpfs: not comparable (durability), 2 of 2",
    );
    expect(groupSummary(cell({ pairs: 2, not_comparable: 2, verdict: "not_comparable" }))).toBe("not comparable (durability): 2 of 2 series");
  });

  it("says why a subset has no pair: no runs of it here, none in the baseline, or series apart", () => {
    // tmpfs writes only the file that fits in memory: its 64 MiB subset has no runs, not "no series in both".
    const none = cell({ pairs: 0, runs: 0, series: 0, samples: 0, value: null, verdict: "missing" });
    expect(subsetSummary("filesize", "67108864", none, cell({}))).toBe("filesize=67108864: no runs");
    expect(subsetSummary("inodes", "300", cell({ pairs: 0, verdict: "missing" }), none)).toBe("inodes=300: no baseline runs to compare with");
    expect(subsetSummary("inodes", "300", cell({ pairs: 0, verdict: "missing" }), cell({}))).toBe("inodes=300: no series in both groups");
  });

  it("splits a comma-separated pair_ignore as the API does", () => {
    const state = parseGroupCompare(new URLSearchParams("workload=w&by=fs&value=a&value=b&pair_ignore=agent,target&pair_ignore=mode"))!;
    expect(state.pairIgnore).toEqual(["agent", "target", "mode"]);
  });
});
