// Links from a run to the views of the same data.
import { exploreLink } from "../explore";
import type { RunSummary } from "./api/get-runs";

/** Explore, over time, the one series this run's metric belongs to. */
export function seriesExploreLink(run: Pick<RunSummary, "workload" | "agent" | "target" | "parameters">, metric: string): string {
  const filter = [`agent:${run.agent}`, `target:${run.target}`];
  for (const [name, value] of Object.entries(run.parameters)) {
    if (value === null || typeof value === "object") continue;
    filter.push(`${name}:${String(value)}`);
  }
  return exploreLink({ workload: run.workload, metric, filter });
}
