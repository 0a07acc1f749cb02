// Schedule writes (admin): create, edit, pause/resume, delete.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type Schemas } from "../../../api/client";

type Schedule = Schemas["ScheduleRead"];
export type ScheduleCreate = Schemas["ScheduleCreate"];
export type ScheduleUpdate = Partial<Schemas["ScheduleUpdate"]>;

function useScheduleMutation<V, T>(send: (vars: V) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    // a firing makes jobs, so the jobs and agents views change too
    onSuccess: () => Promise.all(["schedules", "jobs", "agents"].map((key) => client.invalidateQueries({ queryKey: [key] }))),
  });
}

export function useSaveSchedule() {
  return useScheduleMutation((vars: { id: null; body: ScheduleCreate } | { id: number; body: ScheduleUpdate }) =>
    vars.id === null ? apiSend<Schedule>("POST", "/schedules", vars.body) : apiSend<Schedule>("PATCH", `/schedules/${vars.id}`, vars.body),
  );
}

export function usePauseSchedule() {
  return useScheduleMutation(({ id, paused }: { id: number; paused: boolean }) => apiSend<Schedule>("POST", `/schedules/${id}/${paused ? "pause" : "resume"}`));
}

export function useDeleteSchedule() {
  return useScheduleMutation((id: number) => apiSend<null>("DELETE", `/schedules/${id}`));
}
