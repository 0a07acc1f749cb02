import { describe, expect, it } from "vitest";
import { mergedOrder, naturalCompare, naturalSorted, plainNumber } from "./natural";

// The server's examples (tests/backend/core/test_natural.py), in their natural order.
const EXPECTED = [
  "2.1.9",
  "2.1.10",
  "2.1.11",
  "2.2.0-rc1",
  "2.2.0-rc2",
  "2.2.0",
  "2.2.0-1",
  "2.2.2",
  "6.1",
  "6.1.0-18-amd64",
  "6.1.0-25-amd64",
  "6.10",
  "6.10.0-1-amd64",
  "head",
  "latest",
  "main",
  "master",
  "trunk",
];

function shuffled<T>(values: T[], seed: number): T[] {
  const out = [...values];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("natural order", () => {
  it("sorts the examples as the server does, whatever the input order", () => {
    expect([...EXPECTED].sort()).not.toEqual(EXPECTED); // the text order is the trap
    for (let seed = 1; seed < 20; seed++) {
      expect(naturalSorted(shuffled(EXPECTED, seed))).toEqual(EXPECTED);
      expect(shuffled(EXPECTED, seed).sort(naturalCompare)).toEqual(EXPECTED);
    }
  });

  it.each([
    ["2.1.9", "2.1.10"],
    ["2.2.0-rc1", "2.2.0"],
    ["2.2.0rc1", "2.2.0"],
    ["2.2.0-beta", "2.2.0-rc1"],
    ["6.1", "6.10"],
    ["6.1.0-18-amd64", "6.1.0-25-amd64"],
    ["6.1.0-25-amd64", "6.10.0-1-amd64"],
    ["v1.9", "v1.10"],
    ["9", "10"],
    ["2.2.0", "trunk"],
    ["Main", "trunk"],
    ["release9", "release10"],
  ])("%s < %s", (low, high) => {
    expect(naturalCompare(low, high)).toBeLessThan(0);
    expect(naturalCompare(high, low)).toBeGreaterThan(0);
  });

  it("sorts numbers as numbers, null last; 6.10 is a version, not 6.1", () => {
    expect(naturalSorted(["0.5", "0.25", "10", "2", null])).toEqual(["0.25", "0.5", "2", "10", null]);
    expect(naturalSorted([10, 2.5, 131072, 4096])).toEqual([2.5, 10, 4096, 131072]);
    expect(naturalSorted(["10", "9", null, "trunk"])).toEqual(["9", "10", "trunk", null]);
    expect(plainNumber("6.10")).toBeNull();
    expect(plainNumber("6.1")).toBe(6.1);
    expect(naturalSorted(["6.9", "6.10", "6.1"])).toEqual(["6.1", "6.9", "6.10"]);
  });

  it("is a total order over mixed values: antisymmetric, transitive, never a tie between distinct values", () => {
    const pool: unknown[] = [...EXPECTED, "", "v", "a", "2", "2.0", "2-0", "2_0", 2, 2.5, true, false, null, "TRUNK", "1.0.0-rc1", "1.0a2", "1.0alpha1"];
    for (const a of pool)
      for (const b of pool) {
        const ab = naturalCompare(a, b);
        expect(Math.sign(ab) + Math.sign(naturalCompare(b, a))).toBe(0);
        if (a !== b) expect(ab).not.toBe(0);
        for (const c of pool) if (ab < 0 && naturalCompare(b, c) < 0) expect(naturalCompare(a, c)).toBeLessThan(0);
      }
    const first = [...pool].sort(naturalCompare);
    for (let seed = 1; seed < 10; seed++) expect(shuffled(pool, seed).sort(naturalCompare)).toEqual(first);
  });
});

describe("mergedOrder", () => {
  it("keeps every trace's own order, natural where they say nothing", () => {
    // The server put trunk first for this dimension (order=version:trunk,*).
    expect(
      mergedOrder([
        ["trunk", "2.1.9", "2.1.10"],
        ["trunk", "2.1.10", "2.2.0"],
      ]),
    ).toEqual(["trunk", "2.1.9", "2.1.10", "2.2.0"]);
    expect(
      mergedOrder([
        ["2.1.10", "2.2.0"],
        ["2.1.9", "2.2.0"],
      ]),
    ).toEqual(["2.1.9", "2.1.10", "2.2.0"]);
    expect(mergedOrder([])).toEqual([]);
    // Sequences that disagree still give every value once.
    expect(
      mergedOrder([
        ["b", "a"],
        ["a", "b"],
      ]).sort(),
    ).toEqual(["a", "b"]);
  });
});
