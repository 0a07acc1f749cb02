import { describe, expect, it } from "vitest";
import type { ReportData } from "./api/get-report-data";
import type { Explore } from "../explore";
import { exploreMixHtml, exploreTableHtml, reportHtml } from "./export-html";

const explore = {
  workload: "treeops",
  metric: "walk.seconds,find.seconds",
  unit: "s",
  direction: "lower",
  x: "threads",
  group: "metric",
  x_numeric: true,
  truncated: false,
  flag_reasons: {},
  note: null,
  traces: [
    { group: "walk.seconds", points: [{ x: 1, n: 2, repetitions: 6, median: 20.5, mean: 20, min: 19, max: 22, p5: 19.1, p95: 21.9, flags: [], runs: ["r1"] }] },
    {
      group: "find.seconds",
      points: [{ x: 1, n: 2, repetitions: 6, median: 12.25, mean: 12, min: 11, max: 13, p5: 11.1, p95: 12.9, flags: [], runs: ["r2"] }],
    },
  ],
};

const data = {
  report: {
    slug: "walks",
    title: "Walks </script><script>alert(1)</script>",
    notes: "# Notes\n\n<b>raw</b>",
    pinned_at: null,
    created_at: "2026-11-26T06:00:00Z",
    updated_at: "2026-11-26T06:00:00Z",
    blocks: [
      {
        kind: "explore",
        title: null,
        workload: "treeops",
        metric: "walk.seconds,find.seconds",
        x: "threads",
        group: "metric",
        filter: [],
        view: "lines",
        logx: false,
        logy: false,
      },
      { kind: "markdown", title: null, text: "between </script>" },
    ],
  },
  blocks: [
    { index: 0, kind: "explore", explore, heatmap: null, compare: null, groups: null, series: null, error: null },
    { index: 1, kind: "markdown", explore: null, heatmap: null, compare: null, groups: null, series: null, error: null },
  ],
} as unknown as ReportData;

describe("the report as one HTML file", () => {
  const html = reportHtml(data, "window.Plotly={newPlot:function(){}};", new Date("2026-11-26T07:00:00Z"));

  it("holds plotly, the figures, the data, the notes and the tables", () => {
    expect(html).toContain("window.Plotly={newPlot:function(){}};");
    const figures = JSON.parse(/<script type="application\/json" id="figures">(.*?)<\/script>/s.exec(html)![1]!) as { data: { name: string; y: number[] }[] }[];
    expect(figures).toHaveLength(1);
    expect(figures[0]!.data.map((t) => [t.name, t.y])).toEqual([
      ["walk.seconds", [20.5]],
      ["find.seconds", [12.25]],
    ]);
    expect(html).toContain('<div class="plot" id="plot-0" data-block="0"></div>');
    expect(html).toContain('<td class="num">20.5</td>');
    expect(html).toContain('<td class="num">12.25</td>');
    expect(html).toContain("<h1>Notes</h1>");
    expect(html).toContain("&lt;b&gt;raw&lt;/b&gt;");
  });

  it("asks the network for nothing and cannot be broken out of", () => {
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img|@import|url\(/i);
    expect(html).toContain("default-src 'none'");
    // Exactly the four script elements it made: no text in the data closed one early.
    expect(html.match(/<script/g)).toHaveLength(4);
    expect(html.match(/<\/script>/g)).toHaveLength(4);
    expect(html).toContain("Walks &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});

describe("exploreTableHtml", () => {
  it("writes sizes as people do and keeps the server's order", () => {
    const point = (x: number | string, median: number) => ({
      x,
      n: 1,
      repetitions: 3,
      median,
      mean: median,
      min: median,
      max: median,
      p5: median,
      p95: median,
      flags: [],
      runs: ["r"],
    });
    const sizes = {
      ...explore,
      x: "segsize",
      group: "version",
      traces: [
        { group: "2.1.9", points: [point(4096, 1), point(131072, 2)] },
        { group: "2.1.10", points: [point(4194304, 3)] },
      ],
    } as unknown as Explore;
    const html = exploreTableHtml(sizes);
    const cells = [...html.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
    expect(cells).toEqual([
      ["2.1.9", "4 KiB"],
      ["2.1.9", "128 KiB"],
      ["2.1.10", "4 MiB"],
    ]);
  });
});

describe("exploreMixHtml", () => {
  it("says what the lines split by and what the points pool, sizes as people write them", () => {
    const sizes = {
      ...explore,
      split_by: ["param.sync"],
      pooled: ["param.segsize"],
      traces: [
        { group: "a", split: { "param.sync": "file" }, mixes: { "param.segsize": ["1048576", "131072"] }, points: [] },
        { group: "a", split: { "param.sync": "none" }, mixes: { "param.segsize": ["131072", null] }, points: [] },
      ],
    } as unknown as Explore;
    expect(exploreMixHtml(sizes)).toBe(
      '<p class="muted mixes" data-mixes>Split by sync: each line holds runs alike in it. Mixes segsize: 1 MiB, 128 KiB, not set.</p>',
    );
    expect(exploreMixHtml({ ...explore, split_by: [], pooled: [] } as unknown as Explore)).toBe("");
  });
});
