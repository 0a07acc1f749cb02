import { describe, expect, it } from "vitest";
import type { SeriesPoints, VersionSpan } from "./api/get-series-points";
import { CHANGE_FLAG_PLACES, seriesFigure, seriesMarks } from "./figures";
import { describeVersions, MAX_VERSION_MARKS, NAME_ROWS, nameWidth, placeNames, versionChanges, versionTexts } from "./versions";

const T = Array.from({ length: 8 }, (_, i) => `2026-06-0${i + 1}T00:00:00+00:00`);
// fs_version changes at point 3, the kernel at 5, and the kernel is gone from point 7 on.
const SPANS: VersionSpan[] = [
  { at: 0, labels: { fs_version: "2.1.9", kernel: "6.1" } },
  { at: 3, labels: { fs_version: "2.1.10", kernel: "6.1" } },
  { at: 5, labels: { fs_version: "2.1.10", kernel: "6.10" } },
  { at: 7, labels: { fs_version: "2.1.10" } },
];

function points(spans: VersionSpan[] = SPANS): SeriesPoints {
  return {
    series: {
      id: 1,
      workload: "w",
      metric: "m",
      unit: "ops/s",
      direction: "higher",
      agent: "a",
      target: "/t",
      parameters: {},
      labels: {},
      points: T.length,
      last_at: T[7] ?? null,
    },
    older: false,
    t: T,
    value: T.map((_, i) => 100 + i),
    run: T.map((_, i) => `run-${i}`),
    p5: T.map((_, i) => 99 + i),
    p95: T.map((_, i) => 101 + i),
    versions: spans,
  };
}

describe("version labels of a series' points", () => {
  it("gives each point its span's labels", () => {
    const texts = versionTexts(SPANS, T.length);
    expect(texts).toEqual([
      "fs_version 2.1.9 · kernel 6.1",
      "fs_version 2.1.9 · kernel 6.1",
      "fs_version 2.1.9 · kernel 6.1",
      "fs_version 2.1.10 · kernel 6.1",
      "fs_version 2.1.10 · kernel 6.1",
      "fs_version 2.1.10 · kernel 6.10",
      "fs_version 2.1.10 · kernel 6.10",
      "fs_version 2.1.10",
    ]);
    expect(describeVersions({})).toBe("");
  });

  it("marks each change with what changed, at its first point", () => {
    expect(versionChanges(SPANS, T)).toEqual([
      { at: 3, t: T[3], text: "fs_version 2.1.10" },
      { at: 5, t: T[5], text: "kernel 6.10" },
      { at: 7, t: T[7], text: "no kernel" },
    ]);
    expect(versionChanges([SPANS[0]!], T)).toEqual([]);
  });

  it("draws the hover text and a line and a name per change", () => {
    const figure = seriesFigure(points(), "light");
    const median = figure.data.find((t) => t.name === "median")!;
    expect(median.text).toEqual(versionTexts(SPANS, T.length));
    expect(String(median.hovertemplate)).toContain("%{text}");
    const shapes = figure.layout.shapes as { x0: string; name: string }[];
    expect(shapes.map((s) => s.x0)).toEqual([T[3], T[5], T[7]]);
    const names = (figure.layout.annotations as { x: string; text: string; visible: boolean }[]).filter((a) => a.text !== "");
    expect(names.map((a) => [a.x, a.text])).toEqual([
      [T[3], "fs_version 2.1.10"],
      [T[5], "kernel 6.10"],
      [T[7], "no kernel"],
    ]);
  });

  it("marks nothing, and hovers no versions, for points without version labels", () => {
    const figure = seriesFigure(points([{ at: 0, labels: {} }]), "light");
    const median = figure.data.find((t) => t.name === "median")!;
    expect(median.text).toBeUndefined();
    expect(String(median.hovertemplate)).not.toContain("%{text}");
    expect(figure.layout.shapes).toEqual([]);
  });

  it("marks at most MAX_VERSION_MARKS changes", () => {
    const t = Array.from({ length: 100 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString());
    const spans = t.map((_, i) => ({ at: i, labels: { version: `1.${i}` } }));
    const figure = seriesFigure({ ...points(spans), t, value: t.map(() => 1), run: t.map(() => "r"), p5: t.map(() => 1), p95: t.map(() => 1) }, "dark");
    expect((figure.layout.shapes as unknown[]).length).toBe(MAX_VERSION_MARKS);
  });
});

describe("version names above the plot", () => {
  // A seeded generator: the cases vary in count, spacing, text length and width.
  function rng(seed: number) {
    let s = seed;
    return () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
  }
  const interval = (x: number, w: number, anchor: "left" | "right"): [number, number] => (anchor === "left" ? [x, x + w] : [x - w, x]);
  const overlaps = (a: [number, number], b: [number, number], gap: number) => a[0] < b[1] + gap && a[1] > b[0] - gap;

  it("places no two names of a row over each other, within the plot, and drops only a name that fits nowhere", () => {
    const random = rng(40);
    for (let n = 0; n < 300; n++) {
      const width = [250, 290, 390, 700, 1200][n % 5] ?? 290;
      const count = 1 + Math.floor(random() * 8);
      const ats = Array.from({ length: count }, () => Math.floor(random() * 1000)).sort((a, b) => a - b);
      const changes = ats.map((at) => ({ at, text: "v".repeat(3 + Math.floor(random() * 30)) }));
      const places = placeNames(changes, 0, 1000, width);
      expect(places).toHaveLength(count);
      // The oracle: the names' intervals in pixels, computed here from the places.
      const placed: { row: number; span: [number, number] }[] = [];
      changes.forEach((c, i) => {
        const x = (c.at / 1000) * width;
        const place = places[i];
        if (place) {
          const span = interval(x, nameWidth(c.text), place.xanchor);
          expect(span[0]).toBeGreaterThanOrEqual(-8);
          expect(span[1]).toBeLessThanOrEqual(width + 16);
          for (const other of placed) if (other.row === place.row) expect(overlaps(span, other.span, 0)).toBe(false);
          expect(place.row).toBeLessThan(NAME_ROWS);
          placed.push({ row: place.row, span });
        } else {
          // Dropped: each of its places was taken by a name placed before it, or out of the plot.
          for (let row = 0; row < NAME_ROWS; row++) {
            for (const anchor of ["left", "right"] as const) {
              const span = interval(x, nameWidth(c.text), anchor);
              const out = span[0] < -8 || span[1] > width + 16;
              expect(out || placed.some((o) => o.row === row && overlaps(span, o.span, 6))).toBe(true);
            }
          }
        }
      });
    }
  });

  it("names every change on a wide plot, and not every close one on a phone's", () => {
    const changes = [250, 500, 750].map((at) => ({ at, text: "fs_version 2.2.0 · kernel 6.8.0" }));
    expect(placeNames(changes, 0, 1000, 1100).every((p) => p?.row === 0)).toBe(true);
    const phone = placeNames(changes, 0, 1000, 290);
    expect(phone.filter((p) => p === null).length).toBeGreaterThan(0);
  });

  it("puts a name near the right edge to the left of its line", () => {
    expect(placeNames([{ at: 990, text: "fs_version 2.3.0" }], 0, 1000, 600)).toEqual([{ row: 0, xanchor: "right" }]);
  });

  it("lays the marks for the plot's width: the names that fit, every line, the change points' flags after, as many annotations whatever they are", () => {
    type Note = { text: string; name: string; visible: boolean };
    const shown = (notes: unknown[]) => (notes as Note[]).filter((a) => a.text !== "");
    const wide = seriesMarks(points(), "light", [], 1200);
    expect(shown(wide.annotations).map((a) => a.text)).toEqual(["fs_version 2.1.10", "kernel 6.10", "no kernel"]);
    const change = {
      run_uuid: "run-4",
      started_at: T[4] ?? "",
      before: 1,
      after: 2,
      change_pct: 100,
      confidence: 0.99,
      kind: "improvement" as const,
      tentative: false,
      cause: null,
      alert_id: 5,
    };
    const narrow = seriesMarks(points(), "light", [change], 200);
    expect(narrow.shapes).toHaveLength(4);
    const texts = shown(narrow.annotations).map((a) => a.text);
    expect(texts.length).toBeLessThan(4);
    expect(shown(narrow.annotations).at(-1)).toMatchObject({ text: "▼", name: "alert:5", x: T[4] });
    // The same count of annotations (plotly draws a change of them alone only so): the
    // names' places, then CHANGE_FLAG_PLACES flags' places, all visible, empty ones without
    // text; more change points than places, each its flag.
    const many = seriesMarks(
      points(),
      "light",
      Array.from({ length: CHANGE_FLAG_PLACES + 5 }, () => change),
      390,
    );
    expect(shown(many.annotations).filter((a) => a.text === "▼")).toHaveLength(CHANGE_FLAG_PLACES + 5);
    for (const marks of [wide, narrow]) {
      expect(marks.annotations).toHaveLength(3 + CHANGE_FLAG_PLACES);
      expect((marks.annotations as Note[]).every((a) => a.visible)).toBe(true);
    }
    // The figure drawn first holds the same marks for its width.
    expect(seriesFigure(points(), "light", [], 1200).layout.annotations).toEqual(wide.annotations);
  });
});
