import { useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { isActive } from "../progress";

export type JobPage = Schemas["JobPage"];

export const POLL_MS = 2000;

export function getJobs(query: Record<string, string | number>, signal?: AbortSignal): Promise<JobPage> {
  return apiGet<JobPage>("/jobs", query, signal);
}

/** The jobs list; polled every 2 s while any job on it is queued, leased or running. */
export function useJobs(query: Record<string, string | number>) {
  return useQuery({
    queryKey: ["jobs", query],
    queryFn: ({ signal }) => getJobs(query, signal),
    refetchInterval: (q) => (q.state.data?.items.some((j) => isActive(j.status)) ? POLL_MS : false),
  });
}
