import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ApiError, apiSend, type Schemas } from "../../../api/client";
import { scheduleKeys } from "../../../api/query-keys";

export type SchedulePreview = Schemas["SchedulePreview"];
export type SchedulePreviewIn = Schemas["SchedulePreviewIn"];

/** What a schedule would do (POST /schedules/preview): asked again whenever `body` changes, null while it is incomplete. */
export function usePreview(body: SchedulePreviewIn | null) {
  return useQuery({
    queryKey: scheduleKeys.preview(body),
    queryFn: () => apiSend("POST", "/schedules/preview", { body: body! }),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
    // a 422 is the answer (shown by the fields); retrying it is pointless
    retry: (n, error) => !(error instanceof ApiError && error.status < 500) && n < 2,
  });
}
