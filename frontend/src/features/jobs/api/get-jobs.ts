import { useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { isActive } from "../progress";
import { jobKeys } from "../../../api/query-keys";

export type JobPage = Schemas["JobPage"];

export const POLL_MS = 2000;

export type JobsQuery = ApiQuery<"/jobs">;

export function getJobs(query: JobsQuery, signal?: AbortSignal): Promise<JobPage> {
  return apiGet("/jobs", { query, signal });
}

/** The jobs list; polled every 2 s while any job on it is queued, leased or running. */
export function useJobs(query: JobsQuery) {
  return useQuery({
    queryKey: jobKeys.list(query),
    queryFn: ({ signal }) => getJobs(query, signal),
    refetchInterval: (q) => (q.state.data?.items.some((j) => isActive(j.status)) ? POLL_MS : false),
  });
}
