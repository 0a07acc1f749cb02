import { describe, expect, it } from "vitest";
import {
  canonicalSearch,
  exploreQuery,
  exploreSearch,
  heatmapFromExplore,
  heatmapQueries,
  heatmapSearch,
  metricList,
  parseExploreState,
  parseHeatmapState,
  withGroup,
} from "./url-state";

describe("explore URL state", () => {
  it("reads the API's names from the query string", () => {
    const state = parseExploreState(new URLSearchParams("workload=partialread&metric=read.mb_per_s&x=k&group=version&filter=segsize:131072&filter=host:a"));
    expect(state).toEqual({
      workload: "partialread",
      metric: "read.mb_per_s",
      x: "k",
      group: "version",
      filter: ["segsize:131072", "host:a"],
      view: "lines",
      logx: false,
      logy: false,
      exact: false,
      order: [],
    });
    expect(exploreQuery(state)).toEqual({ workload: "partialread", metric: ["read.mb_per_s"], x: "k", group: "version", filter: ["segsize:131072", "host:a"] });
  });

  it("keeps an order of a dimension's values in the link and asks the API for it", () => {
    const state = parseExploreState(new URLSearchParams("workload=w&metric=m&x=version&order=version:*,trunk&order=nocolon"));
    expect(state.order).toEqual(["version:*,trunk"]);
    expect(exploreQuery(state)).toMatchObject({ order: ["version:*,trunk"] });
    expect(exploreSearch(state).toString()).toBe("workload=w&metric=m&x=version&order=version%3A*%2Ctrunk");
    expect(exploreQuery(parseExploreState(new URLSearchParams("workload=w&metric=m")))).not.toHaveProperty("order");
  });

  it("asks for exact figures only when the link says so", () => {
    const state = parseExploreState(new URLSearchParams("workload=w&metric=m&x=k&exact=1"));
    expect(state.exact).toBe(true);
    expect(exploreQuery(state)).toMatchObject({ exact: true });
    expect(exploreSearch(state).toString()).toBe("workload=w&metric=m&x=k&exact=1");
  });

  it("round-trips, leaving defaults out", () => {
    const query = "workload=partialread&metric=read.mb_per_s&x=k&group=version&filter=segsize%3A131072&view=box&logy=1";
    const state = parseExploreState(new URLSearchParams(query));
    expect(exploreSearch(state).toString()).toBe(query);
    expect(exploreSearch(parseExploreState(new URLSearchParams("workload=w&x=time"))).toString()).toBe("workload=w");
  });

  it("falls back to defaults for missing or unknown values", () => {
    const state = parseExploreState(new URLSearchParams("view=pie&filter=nocolon&logx=yes"));
    expect(state.x).toBe("time");
    expect(state.view).toBe("lines");
    expect(state.filter).toEqual([]);
    expect(state.logx).toBe(false);
    expect(exploreQuery(state)).toBeNull();
  });

  it("keeps a filter value that holds a colon", () => {
    expect(parseExploreState(new URLSearchParams("filter=target:/mnt/a:b")).filter).toEqual(["target:/mnt/a:b"]);
  });
});

describe("several metrics on one plot", () => {
  it("keeps several metrics only with group=metric, in the API's comma form", () => {
    const both = parseExploreState(new URLSearchParams("workload=treeops&metric=walk.seconds,find.seconds&group=metric&x=threads"));
    expect(both.metric).toBe("walk.seconds,find.seconds");
    expect(metricList(both.metric)).toEqual(["walk.seconds", "find.seconds"]);
    // the API takes the metrics repeated or comma-separated: one value, as the page's URL has them
    expect(exploreQuery(both)).toEqual({ workload: "treeops", metric: ["walk.seconds,find.seconds"], x: "threads", group: "metric", filter: [] });
    expect(exploreSearch(both).toString()).toBe("workload=treeops&metric=walk.seconds%2Cfind.seconds&x=threads&group=metric");
    // Repeated metrics read the same; a repeat is dropped.
    expect(parseExploreState(new URLSearchParams("metric=a&metric=b,a&group=metric")).metric).toBe("a,b");
    // Without group=metric, the first metric only.
    expect(parseExploreState(new URLSearchParams("metric=a,b&group=version")).metric).toBe("a");
  });

  it("leaving group=metric keeps the first metric; the heatmap takes it too", () => {
    const both = parseExploreState(new URLSearchParams("workload=t&metric=a,b&group=metric&x=k"));
    expect(withGroup(both, "version")).toEqual({ group: "version", metric: "a" });
    expect(withGroup(both, "metric")).toEqual({ group: "metric" });
    expect(withGroup({ ...both, group: "version", metric: "a" }, "agent")).toEqual({ group: "agent" });
    const heat = heatmapFromExplore(both);
    expect([heat.metric, heat.x, heat.y]).toEqual(["a", "k", ""]);
  });
});

describe("heatmap URL state", () => {
  it("asks for one grid, or two when a difference is wanted", () => {
    const one = parseHeatmapState(new URLSearchParams("workload=w&metric=m&x=k&y=segsize&filter=host:a"));
    expect(heatmapQueries(one)).toEqual([{ workload: "w", metric: ["m"], x: "k", group: "segsize", filter: ["host:a"] }]);
    const two = { ...one, diff: "version", a: "1.7.1", b: "trunk", filter: ["host:a", "version:old"] };
    expect(heatmapQueries(two).map((q) => q.filter)).toEqual([
      ["host:a", "version:1.7.1"],
      ["host:a", "version:trunk"],
    ]);
    expect(heatmapQueries({ ...one, y: "" })).toEqual([]);
  });

  it("comes from an explore view with x kept and the group as rows", () => {
    const state = parseExploreState(new URLSearchParams("workload=w&metric=m&x=k&group=segsize"));
    const heat = heatmapFromExplore(state);
    expect(heat.x).toBe("k");
    expect(heat.y).toBe("segsize");
    expect(heatmapSearch(heat).toString()).toBe("workload=w&metric=m&x=k&y=segsize");
    expect(heatmapFromExplore({ ...state, x: "time" }).x).toBe("");
  });
});

describe("canonicalSearch", () => {
  it("matches index.html's early request with the app's own query", () => {
    // index.html sends the page's query minus UI-only keys; the app builds it from its state.
    const page = "workload=w&metric=m&group=version&filter=segsize:1&filter=host:a";
    const app = "?workload=w&metric=m&x=time&filter=segsize%3A1&filter=host%3Aa&group=version";
    expect(canonicalSearch(page)).toBe(canonicalSearch(app));
    expect(canonicalSearch("workload=w&metric=m&x=k")).not.toBe(canonicalSearch("workload=w&metric=m"));
  });
});
