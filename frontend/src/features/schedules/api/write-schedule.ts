// Schedule writes (admin): create, edit, pause/resume, delete.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type ApiBody } from "../../../api/client";
import { agentKeys, jobKeys, scheduleKeys } from "../../../api/query-keys";

export type ScheduleCreate = ApiBody<"/schedules", "post">;
export type ScheduleUpdate = ApiBody<"/schedules/{schedule_id}", "patch">;

function useScheduleMutation<V, T>(send: (vars: V) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    // a firing makes jobs, so the jobs and agents views change too
    onSuccess: () => Promise.all([scheduleKeys.all, jobKeys.all, agentKeys.all].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
}

export function useSaveSchedule() {
  return useScheduleMutation((vars: { id: null; body: ScheduleCreate } | { id: number; body: ScheduleUpdate }) =>
    vars.id === null
      ? apiSend("POST", "/schedules", { body: vars.body })
      : apiSend("PATCH", "/schedules/{schedule_id}", { path: { schedule_id: vars.id }, body: vars.body }),
  );
}

export function usePauseSchedule() {
  return useScheduleMutation(({ id, paused }: { id: number; paused: boolean }) =>
    apiSend("POST", paused ? "/schedules/{schedule_id}/pause" : "/schedules/{schedule_id}/resume", { path: { schedule_id: id } }),
  );
}

export function useDeleteSchedule() {
  return useScheduleMutation((id: number) => apiSend("DELETE", "/schedules/{schedule_id}", { path: { schedule_id: id } }));
}
