import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, apiUrl, type Schemas } from "../../../api/client";
import { seriesKeys } from "../../../api/query-keys";

export type SeriesChangePoints = Schemas["SeriesChangePoints"];
export type SeriesChangePoint = Schemas["SeriesChangePoint"];

/** The changes in a series' newest `points`, or, with `until`, in the newest before that time
 * (a window further back). */
export function getChangePoints(seriesId: number, points: number, until?: string, signal?: AbortSignal): Promise<SeriesChangePoints> {
  return apiGet("/series/{series_id}/change-points", { path: { series_id: seriesId }, query: { points, until }, signal });
}

/** The request's address (index.html may have sent it before the app's code arrived). */
export function changePointsUrl(seriesId: number, points: number, until?: string): string {
  return apiUrl("/series/{series_id}/change-points", { path: { series_id: seriesId }, query: { points, until } });
}

export function changePointsQueryOptions(seriesId: number, points = 1000, until?: string) {
  return queryOptions({
    queryKey: seriesKeys.changePoints(seriesId, points, until ?? null),
    queryFn: ({ signal }) => getChangePoints(seriesId, points, until, signal),
  });
}

export function useChangePoints(seriesId: number, points = 1000, until?: string) {
  return useQuery({ ...changePointsQueryOptions(seriesId, points, until), enabled: Number.isFinite(seriesId) });
}
