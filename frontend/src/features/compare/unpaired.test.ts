import { describe, expect, it } from "vitest";
import type { GroupCompare } from "./group";
import { separating, unpairedGroups } from "./unpaired";

const side = { value: 1, n: 3, runs: 1, flags: [], change: null };
const emptyCell = {
  value: null,
  series: 0,
  runs: 0,
  samples: 0,
  flags: [],
  change_pct: null,
  pairs: 0,
  tested: 0,
  agree: 0,
  better: 0,
  worse: 0,
  not_comparable: 0,
  lowest_pct: null,
  highest_pct: null,
  verdict: null,
};

/** ext4 on /mnt/ext4 and xfs on /mnt/xfs, both with fsync file and none: never in one series. */
function byFs(runs: number[]): GroupCompare {
  const key = (target: string, fsync: string) => ({ agent: "a", target, parameters: { fsync }, labels: { study: "s" } });
  return {
    workload: "smallfile",
    by: "fs",
    values: ["ext4", "xfs", "btrfs"],
    filters: ["mount:sync"],
    pair_ignore: ["agent"],
    groups: runs.map((r, i) => ({ value: ["ext4", "xfs", "btrfs"][i]!, runs: r, durability: {} })),
    metrics: [
      {
        metric: "create.seconds",
        unit: "s",
        direction: "lower",
        cells: [emptyCell, emptyCell, emptyCell],
        pairs: [
          { key: key("/mnt/ext4", "file"), cells: [side, null, null] },
          { key: key("/mnt/ext4", "none"), cells: [side, null, null] },
          { key: key("/mnt/xfs", "file"), cells: [null, side, null] },
          { key: key("/mnt/xfs", "none"), cells: [null, side, null] },
        ],
      },
    ],
  } as unknown as GroupCompare;
}

describe("why a group has nothing to compare", () => {
  it("names the keys that keep the series apart and the pairing that joins them", () => {
    expect(unpairedGroups(byFs([4, 4, 0]))).toEqual([
      {
        value: "xfs",
        reason: "no series in both fs=xfs and the baseline fs=ext4: their series differ in target as well as fs",
        pairIgnore: ["agent", "target"],
      },
      { value: "btrfs", reason: "no runs with fs=btrfs where mount:sync", pairIgnore: null },
    ]);
  });

  it("says when the baseline itself has no runs, and nothing of groups that pair", () => {
    expect(unpairedGroups(byFs([0, 4, 0])).map((u) => u.reason)).toEqual([
      "no runs with fs=ext4 where mount:sync (the baseline)",
      "no runs with fs=btrfs where mount:sync",
    ]);
    const paired = byFs([4, 4, 4]);
    paired.metrics[0]!.cells[1] = { ...emptyCell, pairs: 2 };
    paired.metrics[0]!.cells[2] = { ...emptyCell, pairs: 1 };
    expect(unpairedGroups(paired)).toEqual([]);
  });

  it("finds only names whose values never meet", () => {
    expect(separating([{ target: "a", parameters: { k: 1 } }], [{ target: "b", parameters: { k: 1 } }])).toEqual(["target"]);
    expect(separating([{ target: "a" }, { target: "b" }], [{ target: "b" }])).toEqual([]);
    expect(separating([{ labels: { fs: "x" } }], [{ labels: {} }])).toEqual(["fs"]);
  });
});
