import { describe, expect, it } from "vitest";
import type { Compare } from "./api/get-compare";
import { compareTableHtml, groupsTableHtml } from "./export-html";
import type { GroupCell, GroupCompare } from "./group";

const cell = (patch: Partial<GroupCell>): GroupCell => ({
  value: 1, series: 2, runs: 4, samples: 12, flags: [], change_pct: null, pairs: 0, tested: 0, agree: 0, better: 0, worse: 0,
  lowest_pct: null, highest_pct: null, verdict: null, not_comparable: 0, reason: null, ...patch,
});

describe("compare tables as HTML", () => {
  it("keeps each subset's verdict and agreement, and names the pooled row", () => {
    const data = {
      by: "fs_version",
      groups: [{ value: "2.2.1" }, { value: "2.2.2" }],
      metrics: [{
        metric: "create.ops_per_s", unit: "ops/s", direction: "higher", pairs: [], varying: ["agent", "fsync"],
        cells: [cell({ value: 12033, series: 4 }), cell({ value: 11736, series: 4, change_pct: -9.4, pairs: 4, tested: 4, agree: 2, worse: 2, lowest_pct: -23, highest_pct: 0.3, verdict: "noise" })],
        split: { dimension: "fsync", subsets: [
          { value: "file", cells: [cell({ value: 2801 }), cell({ value: 2269, change_pct: -19, pairs: 2, tested: 2, agree: 2, worse: 2, verdict: "worse" })] },
          { value: "none", cells: [cell({ value: 21965 }), cell({ value: 22000, change_pct: 0.1, pairs: 2, tested: 2, verdict: "noise" })] },
        ] },
      }],
    } as unknown as GroupCompare;
    const html = groupsTableHtml(data);
    const rows = html.split("<tr").slice(2);
    expect(rows[0]).toContain("create.ops_per_s (ops/s), fsync=file");
    expect(rows[0]).toContain('<td class="num worse">fsync=file: -19 %, worse, 2 of 2<br>2,269</td>');
    expect(rows[1]).toContain('<td class="num">fsync=none: within noise (+0.1 %), 2 of 2<br>22,000</td>');
    expect(rows[2]).toContain("every series pooled (the series disagree: split by fsync above)");
    expect(rows[2]).toContain("pooled: 11,736<br>4 series, n 12<br>-9.4 % median over 4 series, 2 of 4 agree<br>within noise<br>series from -23 % to +0.3 %");
  });

  it("keeps a run's interval, n and verdict, and says not comparable without a figure", () => {
    const change = (patch: object) => ({ change_pct: -20, ci_low_pct: -22, ci_high_pct: -18, n_base: 3, n: 3, verdict: "worse", reason: null, ...patch });
    const data = {
      runs: [{ uuid: "aaaaaaaa-1", agent: "a" }, { uuid: "bbbbbbbb-2", agent: "a" }, { uuid: "cccccccc-3", agent: "a" }],
      metrics: [{
        metric: "create.ops_per_s", unit: "ops/s", values: [250, 200, 22000], n: [3, 3, 3],
        changes: [null, change({}), change({ change_pct: 8700, ci_low_pct: 8600, ci_high_pct: 8800, verdict: "not_comparable", reason: "not comparable (durability): this side is memory-backed (memory_backed=true), the baseline is not" })],
      }],
    } as unknown as Compare;
    const html = compareTableHtml(data);
    expect(html).toContain('<td class="num worse">200<br>n 3<br>-20 % [-22 % … -18 %]<br>worse</td>');
    expect(html).toContain('<td class="num incomparable">22,000<br>n 3<br>not comparable (durability)<br>not comparable (durability): this side is memory-backed');
    expect(html).not.toContain("8700");
  });
});
