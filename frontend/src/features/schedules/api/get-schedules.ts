import { useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { scheduleKeys } from "../../../api/query-keys";

export type Schedule = Schemas["ScheduleRead"];
export type ScheduleList = Schemas["ScheduleList"];
export type FiringPage = Schemas["FiringPage"];

const ACTIVE = ["queued", "leased", "running"];

export function useSchedules() {
  // last firings' job counts move as agents work: kept fresh while the page is open
  return useQuery({ queryKey: scheduleKeys.list(), queryFn: ({ signal }) => apiGet("/schedules", { signal }), refetchInterval: 10_000 });
}

export function useSchedule(id: number) {
  return useQuery({ queryKey: scheduleKeys.detail(id), queryFn: ({ signal }) => apiGet("/schedules/{schedule_id}", { path: { schedule_id: id }, signal }) });
}

/** The schedule's firings, newest first; polled every 2 s while one of their jobs is active. */
export function useFirings(id: number, cursor: string) {
  return useQuery({
    queryKey: scheduleKeys.firings(id, cursor),
    queryFn: ({ signal }) => apiGet("/schedules/{schedule_id}/firings", { path: { schedule_id: id }, query: { cursor }, signal }),
    refetchInterval: (q) => (q.state.data?.items.some((f) => f.jobs.some((j) => ACTIVE.includes(j.status))) ? 2000 : false),
  });
}
