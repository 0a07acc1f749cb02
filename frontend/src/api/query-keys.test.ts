import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { agentKeys, alertKeys, incidentKeys, jobKeys, reportKeys, runKeys, scheduleKeys, seriesKeys } from "./query-keys";

/** The keys of `keys` that invalidating by `by` marks stale, in TanStack Query's own cache. */
async function invalidated(keys: QueryKey[], by: QueryKey[]): Promise<QueryKey[]> {
  const client = new QueryClient();
  for (const key of keys) client.setQueryData(key, 1);
  await Promise.all(by.map((queryKey) => client.invalidateQueries({ queryKey })));
  return keys.filter((key) => client.getQueryState(key)?.isInvalidated);
}

describe("query keys", () => {
  const cached = [
    alertKeys.list({ status: ["open"], limit: 5 }),
    alertKeys.detail(3),
    incidentKeys.detail(2),
    seriesKeys.changePoints(5, 10_000, null),
    seriesKeys.points(5, false, null, 10_000),
    seriesKeys.list({ sort: "newest" }),
    runKeys.detail("u"),
    jobKeys.list({ agent: "a", limit: 500 }),
    jobKeys.detail(9),
    scheduleKeys.detail(4),
    scheduleKeys.preview({ when: "now" }),
    agentKeys.list(),
    reportKeys.data("r"),
  ];

  it("a triage makes every alert, incident and change-point query stale, and nothing else", async () => {
    expect(await invalidated(cached, [alertKeys.all, incidentKeys.all, seriesKeys.allChangePoints()])).toEqual([
      alertKeys.list({ status: ["open"], limit: 5 }),
      alertKeys.detail(3),
      incidentKeys.detail(2),
      seriesKeys.changePoints(5, 10_000, null),
    ]);
  });

  it("a schedule's write reaches schedules, jobs and agents, but not the preview being edited", async () => {
    expect(await invalidated(cached, [scheduleKeys.all, jobKeys.all, agentKeys.all])).toEqual([
      jobKeys.list({ agent: "a", limit: 500 }),
      jobKeys.detail(9),
      scheduleKeys.detail(4),
      agentKeys.list(),
    ]);
  });

  it("tells one window of a series from another", () => {
    expect(seriesKeys.points(5, false, null, 10_000)).not.toEqual(seriesKeys.points(5, false, null, 1000));
    expect(seriesKeys.points(5, false, "2026-01-01T00:00:00Z", 10_000)).not.toEqual(seriesKeys.points(5, false, null, 10_000));
  });
});
