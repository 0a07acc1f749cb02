import { useQuery } from "@tanstack/react-query";
import { apiGet } from "../../../api/client";
import { isActive, type Job } from "../progress";
import { POLL_MS } from "./get-jobs";
import { jobKeys } from "../../../api/query-keys";

export function getJob(id: number, signal?: AbortSignal): Promise<Job> {
  return apiGet("/jobs/{job_id}", { path: { job_id: id }, signal });
}

/** One job; polled every 2 s until it is final. */
export function useJob(id: number) {
  return useQuery({
    queryKey: jobKeys.detail(id),
    queryFn: ({ signal }) => getJob(id, signal),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? POLL_MS : false),
  });
}
