import { describe, expect, it } from "vitest";
import { formatPairs } from "./format";

describe("formatPairs", () => {
  it("writes parameters and labels as k=v, in their order, values as the API gave them", () => {
    expect(formatPairs({ nfiles: 1000, fsync: false, size: "30B", tags: ["a"], none: null })).toBe('nfiles=1000 fsync=false size=30B tags=["a"] none=–');
    expect(formatPairs({})).toBe("");
  });
});
