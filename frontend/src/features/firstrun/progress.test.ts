import { describe, expect, it } from "vitest";
import { bySeed, firstRunAgent, firstRunState, reportSlug, studiesText, studyOf, type JobLike } from "./progress";

const job = (status: string, study: string | null, fs = "tmpfs"): JobLike => ({
  status,
  spec: { workload: "smallfile", labels: study === null ? { fs } : { study, fs, firstrun: "true" } },
});

describe("the first run's agent", () => {
  it("is the unrevoked agent labelled firstrun=true", () => {
    const agents = [
      { name: "lab-1", labels: { disk: "nvme" } },
      { name: "old", labels: { firstrun: "true" }, revoked: true },
      { name: "vm", labels: { firstrun: "true" } },
    ];
    expect(firstRunAgent(agents)?.name).toBe("vm");
    expect(firstRunAgent(agents.slice(0, 2))).toBeNull();
    expect(firstRunAgent([{ name: "x", labels: { firstrun: true } }])).toBeNull(); // not the string
  });
});

describe("firstRunState", () => {
  it("is none without an agent or without study jobs", () => {
    expect(firstRunState(null, [job("queued", "smallfiles-000")], [])).toEqual({ state: "none" });
    expect(firstRunState("vm", [], [])).toEqual({ state: "none" });
    expect(firstRunState("vm", [job("queued", null)], [])).toEqual({ state: "none" });
  });

  it("counts final jobs as done while any is queued, leased or running; the studies in the seeds' order", () => {
    const jobs = [
      job("running", "bonnie-001"),
      job("succeeded", "smallfiles-000"),
      job("failed", "smallfiles-000", "ext4"),
      job("leased", "treewalk-002"),
      job("queued", "bonnie-001", "xfs"),
      job("cancelled", "treewalk-002", "xfs"),
      job("succeeded", null), // another job of the agent, not the first run's
    ];
    expect(firstRunState("vm", jobs, [])).toEqual({
      state: "running",
      agent: "vm",
      done: 3,
      failed: 2,
      total: 6,
      studies: ["smallfiles-000", "bonnie-001", "treewalk-002"],
    });
  });

  it("when every job is final, links each study to its report and says which reports exist", () => {
    const jobs = [
      job("succeeded", "durability-004"),
      job("succeeded", "smallfiles-000"),
      job("expired", "partial-003"),
      job("succeeded", "smallfiles-000", "ext4"),
      job("failed", "smallfiles-000", "xfs"),
    ];
    const state = firstRunState("vm", jobs, ["study-smallfiles-000", "other"]);
    expect(state).toEqual({
      state: "done",
      agent: "vm",
      succeeded: 3,
      failed: 2,
      total: 5,
      studies: [
        { study: "smallfiles-000", slug: "study-smallfiles-000", exists: true, succeeded: 2, total: 3 },
        { study: "partial-003", slug: "study-partial-003", exists: false, succeeded: 0, total: 1 },
        { study: "durability-004", slug: "study-durability-004", exists: false, succeeded: 1, total: 1 },
      ],
    });
  });
});

describe("texts", () => {
  it("names the studies and slugs", () => {
    expect(studyOf({ status: "queued", spec: { labels: ["study"] } })).toBeNull();
    expect(studyOf({ status: "queued", spec: {} })).toBeNull();
    expect(reportSlug("bonnie-001")).toBe("study-bonnie-001");
    expect(studiesText(["a", "b", "c", "d", "e"])).toBe("the five studies");
    expect(studiesText(["smallfiles-000"])).toBe("the study smallfiles-000");
    expect(studiesText(["a", "b"])).toBe("the two studies");
    expect(["treewalk-002", "x", "bonnie-001", "smallfiles-000", "a-001"].sort(bySeed)).toEqual(["smallfiles-000", "a-001", "bonnie-001", "treewalk-002", "x"]);
  });
});
