import { describe, expect, it } from "vitest";
import type { SeriesPoints, VersionSpan } from "./api/get-series-points";
import { seriesFigure } from "./figures";
import { describeVersions, MAX_VERSION_MARKS, versionChanges, versionTexts } from "./versions";

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
    series: { id: 1, workload: "w", metric: "m", unit: "ops/s", direction: "higher", agent: "a", target: "/t", parameters: {}, labels: {}, points: T.length, last_at: T[7] ?? null },
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
      "fs_version 2.1.9 · kernel 6.1", "fs_version 2.1.9 · kernel 6.1", "fs_version 2.1.9 · kernel 6.1",
      "fs_version 2.1.10 · kernel 6.1", "fs_version 2.1.10 · kernel 6.1",
      "fs_version 2.1.10 · kernel 6.10", "fs_version 2.1.10 · kernel 6.10",
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
    const names = figure.layout.annotations as { x: string; text: string }[];
    expect(names.map((a) => [a.x, a.text])).toEqual([[T[3], "fs_version 2.1.10"], [T[5], "kernel 6.10"], [T[7], "no kernel"]]);
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
