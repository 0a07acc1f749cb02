import { describe, expect, it } from "vitest";
import { envelope, envelopeIn, spreadBand, spreadEdges } from "./spread-band";

describe("spreadBand", () => {
  it("spans p5 to p95 around each median, as error bars would", () => {
    const median = [100, 2.5, 7000, 0.004];
    const p5 = [90, 2.0, 6100, 0.001];
    const p95 = [130, 2.75, 7100, 0.009];
    const [low, high] = spreadBand({ x: ["a", "b", "c", "d"], median, p5, p95, fill: "rgba(0,0,0,0.2)" }) as [Record<string, unknown>, Record<string, unknown>];
    expect(low.y).toEqual(p5);
    expect(high.y).toEqual(p95);
    expect(high).toMatchObject({ name: "p5–p95", fill: "tonexty", fillcolor: "rgba(0,0,0,0.2)", mode: "lines", hoverinfo: "skip", x: ["a", "b", "c", "d"] });
    expect(low).toMatchObject({ name: "p5–p95 low", showlegend: false, mode: "lines", hoverinfo: "skip" });
    expect(low.fill).toBeUndefined();
  });

  it("takes a missing percentile, or one on the wrong side of its median, as the median", () => {
    const { low, high } = spreadEdges([10, 20, 30, 40], [12, null, 25], [15, 18, undefined, 50]);
    expect(low).toEqual([10, 20, 25, 40]);
    expect(high).toEqual([15, 20, 30, 50]);
    expect(spreadEdges([], [], [])).toEqual({ low: [], high: [] });
  });
});

describe("envelope", () => {
  // Irregular times, values on both sides: the envelope checked against a plain grouping.
  const n = 10_000;
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const x: number[] = [];
  for (let i = 0, t = 1_700_000_000_000; i < n; i++) x.push((t += 1 + Math.floor(rand() * 3_600_000)));
  const low = x.map(() => 100 * rand());
  const high = low.map((l) => l + 50 * rand());

  it("keeps each column's lowest low and highest high, at most two vertices a column", () => {
    const buckets = 700;
    const got = envelope(x, low, high, buckets);
    expect(got.x.length).toBeLessThanOrEqual(2 * buckets);
    const col = (t: number) => Math.min(buckets - 1, Math.floor(((t - x[0]!) / (x[n - 1]! - x[0]!)) * buckets));
    const want = new Map<number, { lo: number; hi: number; first: number; last: number }>();
    x.forEach((t, i) => {
      const c = col(t);
      const w = want.get(c);
      if (!w) want.set(c, { lo: low[i]!, hi: high[i]!, first: t, last: t });
      else want.set(c, { lo: Math.min(w.lo, low[i]!), hi: Math.max(w.hi, high[i]!), first: w.first, last: t });
    });
    const seen = new Map<number, { lo: number; hi: number; xs: number[] }>();
    got.x.forEach((t, i) => {
      const c = col(t);
      const s = seen.get(c) ?? { lo: got.low[i]!, hi: got.high[i]!, xs: [] };
      s.xs.push(t);
      expect(got.low[i]).toBe(s.lo);
      expect(got.high[i]).toBe(s.hi);
      seen.set(c, s);
    });
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual([...want.keys()].sort((a, b) => a - b));
    for (const [c, w] of want) {
      const s = seen.get(c)!;
      expect([s.lo, s.hi]).toEqual([w.lo, w.hi]);
      expect(s.xs).toEqual(w.first === w.last ? [w.first] : [w.first, w.last]);
    }
    // x ascending, as plotly draws the edge in order
    expect(got.x.every((t, i) => i === 0 || t >= got.x[i - 1]!)).toBe(true);
  });

  it("returns few points as they are", () => {
    expect(envelope([1, 2, 3], [1, 2, 3], [4, 5, 6], 10)).toEqual({ x: [1, 2, 3], low: [1, 2, 3], high: [4, 5, 6] });
  });

  it("draws a zoomed range from its own points, one beyond each edge", () => {
    const from = x[4000]! + 1;
    const to = x[4100]! - 1;
    const got = envelopeIn(x, low, high, [from, to], 700);
    // 4000..4100 in range: fewer than 2 × 700, so every point, with its neighbours outside
    expect(got.x).toEqual(x.slice(4000, 4101));
    expect(got.low).toEqual(low.slice(4000, 4101));
    expect(envelopeIn(x, low, high, null, 700)).toEqual(envelope(x, low, high, 700));
  });
});
