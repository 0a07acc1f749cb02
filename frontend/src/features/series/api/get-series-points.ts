import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

/** The columns the series page asks for besides t and value: the run behind each point (a click
 * opens it) and p5/p95 for the error bars. Asking for no more keeps 10,000-point answers small. */
export const SERIES_POINT_FIELDS = ["run", "p5", "p95"] as const;
type Asked = (typeof SERIES_POINT_FIELDS)[number];

export type SeriesPoints = Omit<Schemas["SeriesPoints"], Asked> & { [K in Asked]: NonNullable<Schemas["SeriesPoints"][K]> };

export function getSeriesPoints(id: number, samples: boolean, signal?: AbortSignal): Promise<SeriesPoints> {
  return apiGet<SeriesPoints>(`/series/${id}/points`, { samples, fields: SERIES_POINT_FIELDS.join(",") }, signal);
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
