import { describe, expect, it } from "vitest";
import type { AlertDetail } from "./api/get-alert";
import type { SeriesChangePoint } from "./api/get-change-points";
import { alertFigure, changePointMarks, IMPROVEMENT_COLOR, REGRESSION_COLOR } from "./figures";

const t = (day: number) => `2026-10-${String(day).padStart(2, "0")}T08:00:00Z`;

function alert(overrides: Partial<AlertDetail> = {}): AlertDetail {
  return {
    id: 7,
    status: "open",
    resolution: null,
    kind: "regression",
    series: { id: 3, workload: "w", metric: "create.ops_per_s", unit: "ops/s", direction: "higher", agent: "a", target: "/t", parameters: {}, labels: {} },
    incident_id: 1,
    before: 1000,
    after: 800,
    change_pct: -20,
    confidence: 0.999,
    tentative: false,
    points_after: 10,
    cause: { "labels.fs_version": { before: "6.1", after: "6.2" } },
    change_at: t(4),
    change_run: { uuid: "r4", started_at: t(4), labels: {}, environment_id: 1 },
    previous_run: { uuid: "r3", started_at: t(3), labels: {}, environment_id: 1 },
    resolved_by_run: null,
    note: null,
    status_changed_at: t(10),
    status_changed_by: null,
    created_at: t(10),
    updated_at: t(10),
    resolved_at: null,
    points: {
      started_at: [t(1), t(2), t(3), t(4), t(5)],
      value: [1000, 1010, 990, 800, 805],
      p5: [990, 1000, 980, 790, 800],
      p95: [1010, 1020, 1000, 810, 815],
      run_uuid: ["r1", "r2", "r3", "r4", "r5"],
      change_index: 3,
    },
    differences: { environment: {}, parameters: {}, labels: { fs_version: { before: "6.1", after: "6.2" } }, durability: {} },
    ...overrides,
  };
}

describe("alert figure", () => {
  it("draws the runs with p5–p95 bars, a line at the change and both levels", () => {
    const fig = alertFigure(alert(), "light");
    const runs = fig.data[0] as { y: number[]; customdata: string[]; error_y: { array: number[]; arrayminus: number[] } };
    expect(runs.y).toEqual([1000, 1010, 990, 800, 805]);
    expect(runs.customdata[3]).toBe("r4");
    expect(runs.error_y.array[0]).toBe(10);
    expect(runs.error_y.arrayminus[3]).toBe(10);
    const shapes = fig.layout.shapes as { x0: string; line: { color: string; dash: string } }[];
    expect(shapes).toHaveLength(1);
    expect(shapes[0]).toMatchObject({ x0: t(4), line: { color: REGRESSION_COLOR, dash: "solid" } });
    const levels = fig.data.slice(1) as { x: string[]; y: number[] }[];
    expect(levels.map((l) => l.y)).toEqual([
      [1000, 1000],
      [800, 800],
    ]);
    expect(levels[0]?.x).toEqual([t(1), t(3)]);
    expect(levels[1]?.x).toEqual([t(4), t(5)]);
  });

  it("dashes the change while it is tentative", () => {
    const fig = alertFigure(alert({ tentative: true, kind: "improvement", change_pct: 20 }), "dark");
    expect((fig.layout.shapes as { line: { color: string; dash: string } }[])[0]?.line).toMatchObject({ dash: "dash", color: IMPROVEMENT_COLOR });
  });
});

describe("change points on a series", () => {
  const cp = (over: Partial<SeriesChangePoint>): SeriesChangePoint => ({
    run_uuid: "r4",
    started_at: t(4),
    before: 1000,
    after: 800,
    change_pct: -20,
    confidence: 0.99,
    kind: "regression",
    tentative: false,
    cause: null,
    alert_id: null,
    ...over,
  });

  it("adds nothing when there is none", () => {
    expect(changePointMarks([], "ops/s")).toEqual({ shapes: [], annotations: [] });
  });

  it("marks each with a coloured line and a flag that names it and opens its alert, as layout only", () => {
    const marks = changePointMarks(
      [
        cp({ alert_id: 9, cause: { "labels.fs_version": { before: "6.1", after: "6.2" } } }),
        cp({ run_uuid: "r8", started_at: t(8), kind: "improvement", tentative: true, change_pct: 15 }),
      ],
      "ops/<s>",
    );
    expect(marks.shapes.map((s) => [s.x0, s.line])).toEqual([
      [t(4), { color: REGRESSION_COLOR, dash: "solid", width: 2 }],
      [t(8), { color: IMPROVEMENT_COLOR, dash: "dash", width: 2 }],
    ]);
    const flags = marks.annotations as {
      x: string;
      y: number;
      yref: string;
      name: string;
      hovertext: string;
      captureevents: boolean;
      font: { color: string };
    }[];
    // At the top of their lines, taking clicks; the name is what a click opens.
    expect(flags.map((a) => [a.x, a.y, a.yref, a.captureevents, a.font.color, a.name])).toEqual([
      [t(4), 1, "paper", true, REGRESSION_COLOR, "alert:9"],
      [t(8), 1, "paper", true, IMPROVEMENT_COLOR, "r8"],
    ]);
    expect(flags[0]?.hovertext).toContain("regression -20 %");
    expect(flags[0]?.hovertext).toContain("fs_version 6.1 → 6.2");
    expect(flags[0]?.hovertext).toContain("ops/&lt;s&gt;");
    expect(flags[0]?.hovertext).toContain("click to open alert #9");
    expect(flags[1]?.hovertext).toContain("tentative");
    expect(flags[1]?.hovertext).toContain("no alert");
  });
});
