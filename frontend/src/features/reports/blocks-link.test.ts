// "Open" on a block: the page it opens reads back every setting of the block. Each block below
// sets every key its kind has (Required<>: a key added to the schema fails to compile here until
// it is set and read back), and the link is read with the page's own URL parser.
import { describe, expect, it } from "vitest";
import { parseGroupCompare, parseRunsCompare } from "../compare";
import { parseExploreState, parseHeatmapState } from "../explore";
import { blockLink, pinFilters, type CompareBlock, type ExploreBlock, type HeatmapBlock, type SeriesBlock } from "./blocks";

// How the block is captioned and explained on the report, not what the page asks for.
const PRESENTATION = new Set(["kind", "title", "empty_note"]);

const explore: Required<ExploreBlock> = {
  kind: "explore",
  title: "t",
  empty_note: "n",
  workload: "smallfile",
  metric: "create.ops_per_s,delete.seconds",
  x: "fs_version",
  group: "metric",
  filter: ["fsync:file", "label.fs:ext4"],
  view: "box",
  logx: true,
  logy: true,
  order: ["label.version:*,trunk", "fs_version:2.2.2,*"],
  split: ["none", "fsync"],
  pool: ["segsize", "write_cache"],
  exact: true,
};
const heatmap: Required<HeatmapBlock> = {
  kind: "heatmap",
  title: "t",
  empty_note: "n",
  workload: "smallfile",
  metric: "create.ops_per_s",
  x: "threads",
  y: "agent",
  filter: ["fsync:file"],
  diff: "fs_version",
  a: "2.1.9",
  b: "2.2.2",
};
const groups: Required<CompareBlock> = {
  kind: "compare",
  title: "t",
  empty_note: "n",
  runs: null,
  workload: "smallfile",
  by: "fs",
  values: ["ext4", "xfs", "tmpfs"],
  filter: ["study:smallfiles-000", "mount:default"],
  pair_ignore: ["agent", "target", "nfiles"],
  metric: ["*.seconds", "create.ops_per_s"],
  min_effect: 7.5,
};
const runs: Required<CompareBlock> = {
  kind: "compare",
  title: "t",
  empty_note: null,
  runs: ["u1", "u2", "u3"],
  workload: null,
  by: null,
  values: null,
  filter: [],
  pair_ignore: null,
  metric: ["create.*"],
  min_effect: 2,
};
const series: Required<SeriesBlock> = { kind: "series", title: "t", empty_note: null, series_id: 42, limit: 1000 };

/** The link read back by the page it opens, in the block's own key names. */
function readBack(link: string): Record<string, unknown> {
  const url = new URL(link, "http://x");
  const p = url.searchParams;
  if (url.pathname === "/explore") return { ...parseExploreState(p) };
  if (url.pathname === "/heatmap") return { ...parseHeatmapState(p) };
  if (url.pathname === "/compare") {
    const g = parseGroupCompare(p);
    if (g)
      return {
        runs: null,
        workload: g.workload,
        by: g.by,
        values: g.values,
        filter: g.filter,
        metric: g.metric,
        pair_ignore: g.pairIgnore,
        min_effect: g.minEffect,
      };
    const r = parseRunsCompare(p)!;
    return { runs: r.runs, workload: null, by: null, values: null, filter: [], pair_ignore: null, metric: r.metric, min_effect: r.minEffect };
  }
  const m = /^\/series\/(\d+)$/.exec(url.pathname)!;
  return { series_id: Number(m[1]), limit: Number(p.get("points") ?? 10_000) };
}

describe("Open on a report block", () => {
  it.each([
    ["explore", explore],
    ["heatmap", heatmap],
    ["group compare", groups],
    ["run compare", runs],
    ["series", series],
  ] as const)("keeps every setting of a %s block", (_, block) => {
    const back = readBack(blockLink(block)!);
    const keys = Object.keys(block).filter((k) => !PRESENTATION.has(k));
    expect(keys.length).toBeGreaterThan(1);
    for (const key of keys) expect([key, back[key]]).toEqual([key, (block as Record<string, unknown>)[key]]);
  });

  it("keeps pair_ignore and min_effect of a group compare (the page otherwise finds no series in both groups)", () => {
    const link = blockLink(groups)!;
    expect(new URL(link, "http://x").searchParams.getAll("pair_ignore")).toEqual(["agent", "target", "nfiles"]);
    expect(readBack(link).min_effect).toBe(7.5);
    // No pair_ignore in the block: the page's default, not an empty list.
    expect(readBack(blockLink({ ...groups, pair_ignore: null })!).pair_ignore).toBeNull();
  });

  it("keeps a heatmap's plain grid plain, and a 10,000-point series window", () => {
    const plain = { ...heatmap, diff: null, a: null, b: null };
    expect(readBack(blockLink(plain)!)).toMatchObject({ diff: "", a: "", b: "", filter: ["fsync:file"] });
    expect(readBack(blockLink({ ...series, limit: 10_000 })!).limit).toBe(10_000);
  });

  it("carries a pinned report's pin as the page's time filter and the series' until", () => {
    const pin = "2026-10-26T00:00:00Z";
    expect(readBack(blockLink(groups, pin)!).filter).toEqual([...groups.filter, `time:..${pin}`]);
    expect(readBack(blockLink(explore, pin)!).filter).toEqual([...explore.filter, `time:..${pin}`]);
    expect(new URL(blockLink(series, pin)!, "http://x").searchParams.get("until")).toBe(pin);
    expect(blockLink(runs, pin)).toBe(blockLink(runs));
    // An open range or one past the pin ends at it; one before it is kept.
    expect(pinFilters(["a:b", "time:2026-10-01..", "time:..2026-12-01", "time:2026-09-01..2026-09-02"], pin)).toEqual([
      "a:b",
      `time:2026-10-01..${pin}`,
      `time:..${pin}`,
      "time:2026-09-01..2026-09-02",
    ]);
  });
});
