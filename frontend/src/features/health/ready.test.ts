import { describe, expect, it } from "vitest";
import { problemsOf } from "./ready";

describe("problemsOf", () => {
  it("is empty when every part is ok, or when /ready could not be read", () => {
    expect(problemsOf(null)).toEqual([]);
    expect(problemsOf({ status: "ready", parts: [{ name: "database", ok: true, detail: "postgresql answers", since: null, age_seconds: null }] })).toEqual([]);
  });

  it("names each part that is down, with what it stops and since when", () => {
    const problems = problemsOf({
      status: "not_ready",
      parts: [
        { name: "database", ok: true, detail: "postgresql answers", since: null, age_seconds: null },
        { name: "worker", ok: false, detail: "the worker process stopped (signal 9); restarting", since: "2026-12-05T01:00:00Z", age_seconds: 12 },
        {
          name: "fold_backlog",
          ok: false,
          detail: "a run waiting for explore's fold has waited 900 s (bound 300 s)",
          since: "2026-12-05T00:45:00Z",
          age_seconds: 900,
        },
      ],
    });
    expect(problems.map((p) => p.name)).toEqual(["worker", "fold_backlog"]);
    expect(problems[0]?.title).toBe("The background worker is not running");
    expect(problems[0]?.detail).toBe(
      "the worker process stopped (signal 9); restarting; alerts, notifications, schedules and explore's rollups wait until it is back",
    );
    expect(problems[0]?.since).toBe("2026-12-05T01:00:00Z");
    expect(problems[1]?.detail).toContain("900 s (bound 300 s)");
  });
});
