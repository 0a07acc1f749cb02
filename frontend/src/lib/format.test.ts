import { describe, expect, it } from "vitest";
import { formatCount, formatPairs } from "./format";

describe("formatPairs", () => {
  it("writes parameters and labels as k=v, in their order, values as the API gave them", () => {
    expect(formatPairs({ nfiles: 1000, fsync: false, size: "30B", tags: ["a"], none: null })).toBe('nfiles=1000 fsync=false size=30B tags=["a"] none=–');
    expect(formatPairs({})).toBe("");
  });
});

describe("formatCount", () => {
  it("writes a count whole, with separators, however large", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(2400)).toBe("2,400");
    expect(formatCount(10_000_000)).toBe("10,000,000");
    expect(formatCount(123_456_789_012)).toBe("123,456,789,012");
    expect(formatCount(null)).toBe("–");
    expect(formatCount(Number.NaN)).toBe("–");
  });
});
