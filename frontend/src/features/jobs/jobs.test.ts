import { describe, expect, it } from "vitest";
import { COMPARE_MAX, jobCompareLink, jobExploreLink } from "./links";
import { barPercent, isActive, progressLine, progressText, readProgress } from "./progress";
import { jobsQuery, jobsSearch, parseJobsState } from "./url-state";

describe("progress", () => {
  it("reads what the agent reported, refusing what is not of its type", () => {
    const p = readProgress({
      phase: "measure",
      percent: 37.5,
      point: { threads: 2, size: "64k", target: "/mnt/a", bad: [1] },
      done: 3,
      total: 8,
      completed_by: 1,
    });
    expect(p).toEqual({ phase: "measure", percent: 37.5, point: { threads: 2, size: "64k", target: "/mnt/a" }, done: 3, total: 8 });
    // target first, then the parameters by name (the server keeps no key order)
    expect(progressText(p)).toBe("measure · target=/mnt/a size=64k threads=2 · run 3/8");
    expect(readProgress({ percent: "50", phase: 3, point: [1], done: null })).toEqual({ percent: null, phase: null, point: null, done: null, total: null });
    expect(readProgress({ percent: 140 }).percent).toBe(100);
  });

  it("fills the bar from percent, else done/total; a success is full", () => {
    expect(barPercent("running", readProgress({ percent: 20, done: 1, total: 2 }))).toBe(20);
    expect(barPercent("running", readProgress({ done: 1, total: 4 }))).toBe(25);
    expect(barPercent("queued", readProgress({}))).toBeNull();
    expect(barPercent("succeeded", readProgress({ percent: 90 }))).toBe(100);
  });

  it("says what a job waits for, does, or how it ended", () => {
    const base = { points: 4, runs: [] as string[], started_at: null, leased_by: null, progress: {} };
    const doing = { phase: "measure", done: 3, total: 4, point: { size: "4k" } };
    expect(progressLine({ ...base, status: "queued" })).toBe("waiting for an agent · 4 runs to make");
    expect(progressLine({ ...base, status: "leased", leased_by: "lab-1" })).toBe("claimed by lab-1, starting");
    expect(progressLine({ ...base, status: "running", progress: doing })).toBe("measure · size=4k · run 3/4");
    // a finished job says what it left, not its last report
    expect(progressLine({ ...base, status: "succeeded", progress: doing, runs: ["a", "b", "c", "d"] })).toBe("finished · 4 runs stored");
    expect(progressLine({ ...base, status: "cancelled" })).toBe("cancelled before an agent started it");
    expect(progressLine({ ...base, status: "failed", started_at: "2026-11-23T03:00:00Z", progress: doing, runs: ["a"] })).toBe(
      "failed during: measure · size=4k · run 3/4 · 1 run stored",
    );
    expect(progressLine({ ...base, status: "expired" })).toBe("expired: no agent took it in time");
  });

  it("calls queued, leased and running active", () => {
    expect(["queued", "leased", "running"].every(isActive)).toBe(true);
    expect(["succeeded", "failed", "cancelled", "expired"].some(isActive)).toBe(false);
  });
});

describe("links from a job", () => {
  const job = {
    spec: { workload: "smallfile" },
    agent: "lab-1",
    leased_by: "lab-2",
    created_at: "2026-11-23T02:00:00Z",
    started_at: "2026-11-23T03:00:00Z",
    finished_at: "2026-11-23T03:10:00Z",
  };
  it("explores the workload on the agent that ran it, over its time a minute either side", () => {
    const url = new URL(jobExploreLink(job) ?? "", "http://x");
    expect(url.pathname).toBe("/explore");
    expect(url.searchParams.get("workload")).toBe("smallfile");
    expect(url.searchParams.getAll("filter")).toEqual(["agent:lab-2", "time:2026-11-23T02:59:00.000Z..2026-11-23T03:11:00.000Z"]);
    expect(new URL(jobExploreLink(job, "create.ops_per_s") ?? "", "http://x").searchParams.get("metric")).toBe("create.ops_per_s");
    expect(new URL(jobExploreLink({ ...job, leased_by: null, finished_at: null }) ?? "", "http://x").searchParams.getAll("filter")).toEqual(["agent:lab-1"]);
  });

  it("compares two to twenty runs", () => {
    expect(jobCompareLink(["a"])).toBeNull();
    expect(jobCompareLink(["a", "b"])).toBe("/compare?runs=a,b");
    const many = Array.from({ length: 25 }, (_, i) => `r${i}`);
    expect(jobCompareLink(many)?.split("=")[1]?.split(",")).toHaveLength(COMPARE_MAX);
  });
});

describe("the jobs list's URL", () => {
  it("keeps known filters and drops the rest", () => {
    const state = parseJobsState(new URLSearchParams("status=running&agent=lab-1&schedule=3&x=1"));
    expect(state).toEqual({ status: "running", agent: "lab-1", schedule: "3", cursor: "" });
    expect(jobsSearch(state).toString()).toBe("status=running&agent=lab-1&schedule=3");
    expect(jobsQuery(state)).toEqual({ limit: 50, status: "running", agent: "lab-1", schedule: 3 });
    expect(parseJobsState(new URLSearchParams("status=bogus&schedule=abc"))).toEqual({ status: "", agent: "", schedule: "", cursor: "" });
  });
});
