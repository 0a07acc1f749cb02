import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type SeriesPoints = Schemas["SeriesPoints"];

export function getSeriesPoints(id: number, samples: boolean, signal?: AbortSignal): Promise<SeriesPoints> {
  return apiGet<SeriesPoints>(`/series/${id}/points`, { samples }, signal);
}

export function seriesPointsQueryOptions(id: number, samples: boolean) {
  return queryOptions({
    queryKey: ["series-points", id, samples],
    queryFn: ({ signal }) => getSeriesPoints(id, samples, signal),
  });
}

export function useSeriesPoints(id: number, samples: boolean) {
  return useQuery({ ...seriesPointsQueryOptions(id, samples), enabled: Number.isFinite(id) });
}
