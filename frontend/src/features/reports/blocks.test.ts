import { describe, expect, it } from "vitest";
import { blockLabel, blockLink, compareGroupsBlock, compareRunsBlock, exploreBlock, moveBlock, slugify } from "./blocks";

const state = {
  workload: "treeops",
  metric: "walk.seconds,find.seconds",
  x: "threads",
  group: "metric",
  filter: ["agent:a"],
  view: "box" as const,
  logx: true,
  logy: false,
  exact: false,
};

describe("report blocks", () => {
  it("takes Explore's view and links back to the same view", () => {
    const block = exploreBlock(state);
    expect(block).toMatchObject({
      kind: "explore",
      workload: "treeops",
      metric: "walk.seconds,find.seconds",
      x: "threads",
      group: "metric",
      filter: ["agent:a"],
      view: "box",
      logx: true,
    });
    expect(blockLink(block)).toBe("/explore?workload=treeops&metric=walk.seconds,find.seconds&x=threads&group=metric&filter=agent%3Aa&view=box&logx=1");
    expect(blockLabel(block)).toBe("walk.seconds, find.seconds against threads, one line per metric where agent:a");
    expect(exploreBlock({ ...state, group: "" }).group).toBeNull();
  });

  it("keeps Explore's order, split, pool and exact, and says them in its label", () => {
    const block = exploreBlock({
      ...state,
      metric: "walk.seconds",
      group: "agent",
      order: ["label.version:2.2.0,*"],
      split: ["none", "fsync"],
      pool: ["segsize"],
      exact: true,
    });
    expect(block).toMatchObject({ order: ["label.version:2.2.0,*"], split: ["none", "fsync"], pool: ["segsize"], exact: true });
    expect(blockLink(block)).toBe(
      "/explore?workload=treeops&metric=walk.seconds&x=threads&group=agent&filter=agent%3Aa&view=box&logx=1&exact=1&order=label.version%3A2.2.0,*&split=none&split=fsync&pool=segsize",
    );
    expect(blockLabel(block)).toBe(
      "walk.seconds against threads, one line per agent where agent:a (split only by fsync, segsize pooled, order label.version:2.2.0,*, exact)",
    );
    // A block stored before these settings: the page's defaults, and a link without them.
    const old = {
      kind: "explore" as const,
      title: null,
      empty_note: null,
      workload: "treeops",
      metric: "walk.seconds,find.seconds",
      x: "threads",
      group: "metric",
      filter: ["agent:a"],
      view: "box" as const,
      logx: true,
      logy: false,
      exact: false,
    };
    expect(blockLink(old)).toBe("/explore?workload=treeops&metric=walk.seconds,find.seconds&x=threads&group=metric&filter=agent%3Aa&view=box&logx=1");
    expect(exploreBlock(state)).toMatchObject({ order: [], split: [], pool: [], exact: false });
  });

  it("takes a run compare or a group compare and links back to it", () => {
    const runs = compareRunsBlock(["u1", "u2"], ["create.*"], null);
    expect(runs).toMatchObject({ runs: ["u1", "u2"], metric: ["create.*"], min_effect: 5, workload: null });
    expect(blockLink(runs)).toBe("/compare?runs=u1,u2&metric=create.*&min_effect=5");
    const groups = compareGroupsBlock({
      workload: "smallfile",
      by: "fs_version",
      values: ["6.1", "6.2"],
      filter: [],
      metric: [],
      pairIgnore: null,
      minEffect: 2,
    });
    expect(groups).toMatchObject({ runs: null, by: "fs_version", values: ["6.1", "6.2"], min_effect: 2 });
    expect(blockLink(groups)).toBe("/compare?workload=smallfile&by=fs_version&value=6.1&value=6.2&min_effect=2");
    expect(blockLabel(groups)).toBe("smallfile by fs_version: 6.1 vs 6.2");
  });

  it("moves blocks within bounds and makes slugs the API accepts", () => {
    expect(moveBlock(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(moveBlock(["a", "b", "c"], 2, 1)).toEqual(["a", "b", "c"]);
    expect(moveBlock(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(slugify("Tahoe downloads, Sep 2011!")).toBe("tahoe-downloads-sep-2011");
    expect(slugify("  ÉCLAIR  ")).toBe("eclair");
    expect(slugify("???")).toBe("report");
    expect(slugify("x".repeat(80))).toHaveLength(64);
    expect(slugify("Tahoe downloads, Sep 2011!")).toMatch(/^[a-z0-9][a-z0-9-]{0,63}$/);
  });
});
