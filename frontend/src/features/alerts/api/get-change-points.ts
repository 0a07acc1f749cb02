import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type SeriesChangePoints = Schemas["SeriesChangePoints"];
export type SeriesChangePoint = Schemas["SeriesChangePoint"];

export function getChangePoints(seriesId: number, points: number, signal?: AbortSignal): Promise<SeriesChangePoints> {
  return apiGet<SeriesChangePoints>(`/series/${seriesId}/change-points`, { points }, signal);
}

export function changePointsQueryOptions(seriesId: number, points = 1000) {
  return queryOptions({ queryKey: ["change-points", seriesId, points], queryFn: ({ signal }) => getChangePoints(seriesId, points, signal) });
}

export function useChangePoints(seriesId: number, points = 1000) {
  return useQuery({ ...changePointsQueryOptions(seriesId, points), enabled: Number.isFinite(seriesId) });
}
