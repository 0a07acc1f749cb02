// From a finished job to its runs in the other views: Explore (its workload on its agent, over
// the time it ran) and Compare (its runs side by side).
import { exploreLink } from "../explore";
import type { Job } from "./progress";
import { paths } from "../../lib/paths";

export const COMPARE_MAX = 20; // the API compares 2 to 20 runs

// The agent stamps runs with its own clock: a minute either side allows for a skew.
const SLACK_MS = 60_000;

/** Explore of the job's workload (one metric of it, if given), filtered to the agent that ran it
 * and the time it ran. */
export function jobExploreLink(job: Pick<Job, "spec" | "agent" | "leased_by" | "created_at" | "started_at" | "finished_at">, metric = ""): string | null {
  const workload = typeof job.spec.workload === "string" ? job.spec.workload : "";
  if (!workload) return null;
  const filter = [`agent:${job.leased_by ?? job.agent}`];
  const from = job.started_at ?? job.created_at;
  if (from && job.finished_at) {
    const start = new Date(new Date(from).getTime() - SLACK_MS).toISOString();
    const end = new Date(new Date(job.finished_at).getTime() + SLACK_MS).toISOString();
    filter.push(`time:${start}..${end}`);
  }
  return exploreLink({ workload, metric, filter });
}

/** Compare of the job's runs (the first 20 when it made more); null with fewer than two. */
export function jobCompareLink(runs: readonly string[]): string | null {
  if (runs.length < 2) return null;
  return paths.compare({ runs: runs.slice(0, COMPARE_MAX).join(",") });
}
