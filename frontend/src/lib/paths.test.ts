import { describe, expect, it } from "vitest";
import { paths, routePatterns, searchText, withSearch } from "./paths";

describe("app paths", () => {
  it("builds each page's address, its parameters encoded", () => {
    expect(paths.run("0b5c-11")).toBe("/runs/0b5c-11");
    expect(paths.series(42)).toBe("/series/42");
    expect(paths.editSchedule(7)).toBe("/schedules/7/edit");
    expect(paths.report("study one")).toBe("/reports/study%20one");
    expect(paths.alert("12")).toBe("/alerts/12");
    expect(paths.explore()).toBe("/explore");
  });

  it("writes a query from a record: arrays repeat, empty values vanish, commas stay readable", () => {
    expect(paths.compare({ runs: "a,b", metric: ["x.*", "y"], min_effect: undefined })).toBe("/compare?runs=a,b&metric=x.*&metric=y");
    expect(paths.jobs({ agent: "lab 1/2", schedule: 3, status: "" })).toBe("/jobs?agent=lab+1%2F2&schedule=3");
    expect(paths.series(5, { points: "1000", until: null })).toBe("/series/5?points=1000");
    expect(paths.settings({ tab: "rules" })).toBe("/settings?tab=rules");
  });

  it("takes a URLSearchParams as it is, and leaves the ? out when the query is empty", () => {
    const params = new URLSearchParams([
      ["filter", "agent:a"],
      ["metric", "a,b"],
    ]);
    expect(withSearch("/explore", params)).toBe("/explore?filter=agent%3Aa&metric=a,b");
    expect(withSearch("/runs", new URLSearchParams())).toBe("/runs");
    expect(searchText({ a: [] })).toBe("");
    // what the page reads back is what was written
    expect(new URLSearchParams(searchText(params)).getAll("metric")).toEqual(["a,b"]);
  });

  it("has a router pattern for every page, matching its address", () => {
    const samples: Record<string, string> = {
      series: paths.series(1),
      run: paths.run("u"),
      schedule: paths.schedule(2),
      editSchedule: paths.editSchedule(2),
      job: paths.job(3),
      alert: paths.alert(4),
      incident: paths.incident(5),
      report: paths.report("r"),
      editReport: paths.editReport("r"),
    };
    for (const [name, pattern] of Object.entries(routePatterns)) {
      const address = samples[name] ?? (paths[name as keyof typeof paths] as () => string)();
      const regex = new RegExp(`^${pattern.replace(/:[a-z]+/g, "[^/]+")}$`);
      expect(address, name).toMatch(regex);
    }
  });
});
