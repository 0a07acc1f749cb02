import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend } from "../../../api/client";

/** Cancel a job (admin): a queued one at once, a running one when its agent next reports. */
export function useCancelJob() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiSend("POST", "/jobs/{job_id}/cancel", { path: { job_id: id } }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ["jobs"] }),
        client.invalidateQueries({ queryKey: ["schedules"] }),
        client.invalidateQueries({ queryKey: ["agents"] }),
      ]),
  });
}
