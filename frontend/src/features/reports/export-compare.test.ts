// The offline HTML of compare blocks keeps what the page shows: intervals, n, agreement,
// verdicts, flags, the durability banner, and why a group has nothing to compare.
import { describe, expect, it } from "vitest";
import type { Compare, GroupCompare } from "../compare";
import type { ReportData } from "./api/get-report-data";
import { reportHtml } from "./export-html";

const WARNING = "These groups differ in durability or cache handling: fsync_policy (file vs none).";
const reasons = { busy: "the machine was busy", few_repetitions: "fewer than 3 repetitions" };

function change(pct: number, low: number, high: number, verdict: "better" | "worse" | "noise" | "few", n = 3) {
  return { change_pct: pct, ci_low_pct: low, ci_high_pct: high, n_base: n, n, verdict };
}

const groups = {
  workload: "smallfile",
  by: "fs_version",
  values: ["2.2.1", "2.2.2", "2.3.0"],
  filters: ["study:zfs"],
  pair_ignore: ["agent"],
  min_effect_pct: 5,
  confidence: 0.95,
  groups: [
    { value: "2.2.1", runs: 12, durability: {} },
    { value: "2.2.2", runs: 12, durability: {} },
    { value: "2.3.0", runs: 0, durability: {} },
  ],
  metrics: [
    {
      metric: "create.ops_per_s",
      unit: "ops/s",
      direction: "higher",
      cells: [
        {
          value: 11175,
          series: 2,
          runs: 12,
          samples: 36,
          flags: [],
          change_pct: null,
          pairs: 0,
          tested: 0,
          agree: 0,
          better: 0,
          worse: 0,
          lowest_pct: null,
          highest_pct: null,
          verdict: null,
        },
        {
          value: 9052,
          series: 2,
          runs: 12,
          samples: 36,
          flags: ["busy"],
          change_pct: -19,
          pairs: 2,
          tested: 2,
          agree: 2,
          better: 0,
          worse: 2,
          lowest_pct: -19.5,
          highest_pct: -18.25,
          verdict: "worse",
        },
        {
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
          lowest_pct: null,
          highest_pct: null,
          verdict: null,
        },
      ],
      pairs: [
        {
          key: { target: "/mnt/a", parameters: { fsync: "file" }, labels: {} },
          cells: [
            { value: 11000, n: 18, runs: 6, flags: [], change: null },
            { value: 8855, n: 18, runs: 6, flags: ["busy"], change: change(-19.5, -20.75, -18.25, "worse", 18) },
            null,
          ],
        },
        {
          key: { target: "/mnt/b", parameters: { fsync: "file" }, labels: {} },
          cells: [
            { value: 11350, n: 18, runs: 6, flags: [], change: null },
            { value: 9279, n: 18, runs: 6, flags: [], change: change(-18.25, -19.5, -17, "worse", 18) },
            null,
          ],
        },
      ],
    },
  ],
  durability_differs: true,
  warning: WARNING,
  durability: [],
  reasons,
} as unknown as GroupCompare;

const runs = {
  runs: [
    { uuid: "aaaaaaaa-0000-0000-0000-000000000001", agent: "zfs-a" },
    { uuid: "bbbbbbbb-0000-0000-0000-000000000002", agent: "zfs-a" },
  ],
  metrics: [
    {
      metric: "create.seconds",
      unit: "s",
      direction: "lower",
      values: [2.5, 2.4],
      spread: [
        [2.4, 2.6],
        [2.3, 2.45],
      ],
      n: [5, 4],
      diff_pct: [null, -4],
      better: [null, true],
      changes: [null, change(-4, -6.5, 1.5, "noise", 4)],
      flags: [[], ["few_repetitions"]],
    },
  ],
  min_effect_pct: 5,
  confidence: 0.95,
  durability_differs: false,
  warning: null,
  durability: [],
  parameters: [],
  labels: [],
  environment: [],
  reasons,
} as unknown as Compare;

const block = { title: null, empty_note: "the 2.3.0 machines were not set up yet", filter: [], metric: [], min_effect: 5 };
const data = {
  report: {
    slug: "zfs",
    title: "ZFS",
    notes: "",
    pinned_at: null,
    created_at: "2026-11-26T06:00:00Z",
    updated_at: "2026-11-26T06:00:00Z",
    blocks: [
      { ...block, kind: "compare", runs: null, workload: "smallfile", by: "fs_version", values: ["2.2.1", "2.2.2", "2.3.0"], pair_ignore: ["agent"] },
      { ...block, empty_note: null, kind: "compare", runs: runs.runs.map((r) => r.uuid), workload: null, by: null, values: null, pair_ignore: null },
    ],
  },
  blocks: [
    { index: 0, kind: "compare", explore: null, heatmap: null, compare: null, groups, series: null, error: null },
    { index: 1, kind: "compare", explore: null, heatmap: null, compare: runs, groups: null, series: null, error: null },
  ],
} as unknown as ReportData;

const html = reportHtml(data, "", new Date("2026-11-26T07:00:00Z"));
const section = (i: number) => new RegExp(`<section class="block" data-kind="compare" data-index="${i}">(.*?)</section>`, "s").exec(html)![1]!;
const text = (s: string) => s.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("a group compare block in the offline HTML", () => {
  const g = section(0);
  it("draws the durability banner above the table", () => {
    expect(g).toContain(`<div class="banner" role="alert" data-banner="durability"><strong>Durability differs.</strong> ${WARNING}</div>`);
    expect(g.indexOf("data-banner")).toBeLessThan(g.indexOf("<table"));
  });
  it("keeps the group cell's change, n, agreement, verdict, range and flags", () => {
    const cell = text(/<td class="num worse">(.*?)<\/td>/s.exec(g)![1]!);
    expect(cell).toContain("9,052 (-19 %)");
    expect(cell).toContain("2 series · 12 runs · n 36");
    expect(cell).toContain("-19 % median over 2 series, 2 of 2 agree");
    expect(cell).toContain(" worse ");
    expect(cell).toContain("series from -20 % to -18 %");
    expect(cell).toContain("⚑ busy");
    expect(g).toContain('title="busy: the machine was busy"');
  });
  it("keeps each series' interval, n and verdict", () => {
    const rows = [...g.matchAll(/<table data-table="series">.*?<\/table>/gs)].map((m) => text(m[0]));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain("target=/mnt/a fsync=file 11,000 · n 18 8,855 · n 18 -20 % [-21 % … -18 %] · n 18 vs 18 worse ⚑ busy no runs");
    expect(rows[0]).toContain("-18 % [-20 % … -17 %] · n 18 vs 18 worse");
  });
  it("says why a group has nothing, with the block's note", () => {
    expect(text(g)).toContain("no runs with fs_version=2.3.0 where study:zfs");
    expect(text(g)).toContain("the 2.3.0 machines were not set up yet");
    expect(text(g)).toContain("(and agent, left out of the pairing)");
  });
});

describe("a run compare block in the offline HTML", () => {
  const r = text(section(1));
  it("keeps the interval, n on both sides, the verdict and the flags", () => {
    expect(r).toContain("2.4 (-4.0 %) 2.3–2.45 · n 4 -4.0 % [-6.5 % … +1.5 %] · n 4 vs 4 within noise ⚑ few_repetitions");
    expect(r).toContain("2.5 2.4–2.6 · n 5");
    expect(section(1)).not.toContain("data-banner");
  });
});

describe("a split group compare in the offline HTML", () => {
  // The answer splits the headline by fsync when the series disagree: file worse, none level.
  const metric = groups.metrics[0]!;
  const cell = (value: number, pct: number | null, verdict: "worse" | "noise" | null, pairs: number) => ({
    ...metric.cells[1]!,
    value,
    change_pct: pct,
    verdict,
    pairs,
    tested: pairs,
    agree: verdict === "worse" ? pairs : 0,
    series: 2,
    samples: 18,
    flags: [],
  });
  const split = {
    ...groups,
    metrics: [
      {
        ...metric,
        split: {
          dimension: "fsync",
          subsets: [
            { value: "file", cells: [cell(11175, null, null, 0), cell(9052, -19, "worse", 2)] },
            { value: "none", cells: [cell(11058, null, null, 0), cell(11060, 0.25, "noise", 2)] },
          ],
        },
      },
    ],
  } as unknown as GroupCompare;
  const html = reportHtml({ ...data, blocks: [{ ...data.blocks[0]!, groups: split }, data.blocks[1]!] } as ReportData, "");
  const table = /<table data-table="groups">(.*?)<\/table>/s.exec(html)![1]!;
  const cells = [...table.matchAll(/<td class="num[^"]*">(.*?)<\/td>/gs)].map((m) => m[0]);
  const [first, second] = [text(cells[0]!), cells[1]!];

  it("gives each subset's headline with its verdict, and names the pooled figure", () => {
    expect(first).toContain("fsync=file: 11,175 · 2 series · n 18");
    expect(text(second)).toContain("fsync=file: -19 % median over 2 series, 2 of 2 agree, worse · 9,052");
    expect(text(second)).toContain("fsync=none: +0.3 % median over 2 series, 0 of 2 agree, within noise · 11,060");
    expect(text(second)).toContain("pooled: 9,052 (-19 %)");
    expect(second).toContain('<div class="subset worse">');
  });
});
