import { describe, expect, it } from "vitest";
import { DENSE_POINTS, forWebGL, hasWebGL, isDense } from "./dense";
import type { Figure } from "./figure";

const line = (n: number, extra: Record<string, unknown> = {}) => ({
  type: "scatter",
  x: Array.from({ length: n }, (_, i) => i),
  y: Array.from({ length: n }, (_, i) => i * 2),
  ...extra,
});

describe("forWebGL", () => {
  it("draws only the scatter traces past DENSE_POINTS by WebGL, keeping everything else", () => {
    const dense = line(DENSE_POINTS + 1, { name: "dense", error_y: { array: [1] }, customdata: ["r"] });
    const figure: Figure = {
      data: [line(DENSE_POINTS), dense, { type: "box", x: new Array(DENSE_POINTS * 2).fill(1) }, { type: "heatmap", z: [[1]] }],
      layout: { height: 400 },
    };
    const shown = forWebGL(figure);
    expect(shown.data.map((t) => t.type)).toEqual(["scatter", "scattergl", "box", "heatmap"]);
    // the dense trace is the same trace but for its type; the others are the very same objects
    expect({ ...shown.data[1], type: "scatter" }).toEqual(dense);
    expect(shown.data[0]).toBe(figure.data[0]);
    expect(shown.layout).toBe(figure.layout);
    // the figure given is left as it was
    expect(figure.data[1]!.type).toBe("scatter");
  });

  it("returns the same figure when no trace is dense, and counts a trace without a type as scatter", () => {
    const small: Figure = { data: [line(10), line(DENSE_POINTS)], layout: {} };
    expect(forWebGL(small)).toBe(small);
    const untyped = { y: new Array(DENSE_POINTS + 1).fill(0) };
    expect(isDense(untyped)).toBe(true);
    expect(isDense({ type: "bar", y: untyped.y })).toBe(false);
  });

  it("leaves a dense trace of lines alone to SVG, and draws one with markers, text or error bars by WebGL", () => {
    const n = DENSE_POINTS + 1;
    expect(isDense(line(n, { mode: "lines" }))).toBe(false);
    expect(isDense(line(n, { mode: "lines", fill: "tonexty" }))).toBe(false);
    expect(isDense(line(n, { mode: "lines+markers" }))).toBe(true);
    expect(isDense(line(n, { mode: "markers" }))).toBe(true);
    expect(isDense(line(n, { mode: "lines+text" }))).toBe(true);
    expect(isDense(line(n, { mode: "lines", error_y: { array: [1] } }))).toBe(true);
    expect(isDense(line(n, { mode: "lines", error_x: { array: [1] } }))).toBe(true);
    expect(isDense(line(DENSE_POINTS, { mode: "markers" }))).toBe(false);
    const figure: Figure = { data: [line(n, { mode: "lines" }), line(n, { mode: "lines", fill: "tonexty" })], layout: {} };
    expect(forWebGL(figure)).toBe(figure);
  });

  it("finds no WebGL where there is no document", () => {
    expect(hasWebGL()).toBe(false);
  });
});
