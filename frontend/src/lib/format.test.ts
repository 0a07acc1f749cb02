import { describe, expect, it } from "vitest";
import { describePage, formatCount, formatPairs, pageStart } from "./format";

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

describe("describePage", () => {
  const runs = { noun: ["run", "runs"] as [string, string], order: "newest first" };
  it("counts a list that fits on one page", () => {
    expect(describePage({ ...runs, total: 12, at: 1, shown: 12, filtered: false })).toBe("12 runs, newest first.");
    expect(describePage({ ...runs, total: 1, at: 1, shown: 1, filtered: true })).toBe("1 run matches, newest first.");
    expect(describePage({ ...runs, total: 3, at: 1, shown: 3, filtered: true })).toBe("3 runs match, newest first.");
  });
  it("says which rows of how many a page shows", () => {
    expect(describePage({ ...runs, total: 123456, at: 1001, shown: 50, filtered: false })).toBe("Runs 1,001–1,050 of 123,456, newest first.");
    expect(describePage({ noun: ["series", "series"], order: "in id order", total: 130, at: 101, shown: 30, filtered: true })).toBe(
      "Series 101–130 of 130 that match, in id order.",
    );
  });
  it("gives the count shown when where the page starts is not known", () => {
    expect(describePage({ ...runs, total: 1234, at: null, shown: 50, filtered: false })).toBe("50 runs of 1,234, newest first.");
    expect(describePage({ ...runs, total: null, at: null, shown: 1, filtered: true })).toBe("1 run that matches, newest first.");
  });
  it("gives the range alone when the server did not count", () => {
    expect(describePage({ ...runs, total: null, at: 51, shown: 50, filtered: true })).toBe("Runs 51–100 that match, newest first.");
  });
});

describe("pageStart", () => {
  it("is 1 without a cursor, the carried place with one, and unknown with a cursor alone", () => {
    expect(pageStart(new URLSearchParams("at=51"))).toBe(1);
    expect(pageStart(new URLSearchParams("cursor=abc&at=51"))).toBe(51);
    expect(pageStart(new URLSearchParams("cursor=abc&at=junk"))).toBe(1);
    expect(pageStart(new URLSearchParams("cursor=abc"))).toBeNull();
  });
});
