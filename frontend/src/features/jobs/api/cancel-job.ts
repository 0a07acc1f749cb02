import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend } from "../../../api/client";
import { agentKeys, jobKeys, scheduleKeys } from "../../../api/query-keys";

/** Cancel a job (admin): a queued one at once, a running one when its agent next reports. */
export function useCancelJob() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiSend("POST", "/jobs/{job_id}/cancel", { path: { job_id: id } }),
    onSuccess: () => Promise.all([jobKeys.all, scheduleKeys.all, agentKeys.all].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
}
