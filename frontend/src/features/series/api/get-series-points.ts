import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, apiUrl, type Schemas } from "../../../api/client";
import { seriesKeys } from "../../../api/query-keys";

/** The columns the series page asks for besides t and value: the run behind each point (a click
 * opens it), p5/p95 for the error bars and the spans of the points' version labels (hover and
 * the marks of version changes; a few entries, not a column). Asking for no more keeps
 * 10,000-point answers small. */
export const SERIES_POINT_FIELDS = ["run", "p5", "p95", "versions"] as const;
type Asked = (typeof SERIES_POINT_FIELDS)[number];

export type SeriesPoints = Omit<Schemas["SeriesPoints"], Asked> & { [K in Asked]: NonNullable<Schemas["SeriesPoints"][K]> };
export type VersionSpan = Schemas["VersionSpan"];

/** How many points a window of the series page may hold; the API's default first. (100,000
 * took the browser 9 to 17 s to draw, against 3.5 s for 10,000.) */
export const WINDOW_SIZES = [10_000, 1_000] as const;
export const DEFAULT_WINDOW = WINDOW_SIZES[0];

/** Which points of a series: the newest `limit`, or with `until` the newest before it (an older
 * window of a long series). */
export type SeriesWindow = { until?: string; limit?: number };

function pointsRequest(id: number, samples: boolean, window: SeriesWindow) {
  return { path: { series_id: id }, query: { samples, fields: [SERIES_POINT_FIELDS.join(",")], until: window.until, limit: window.limit } };
}

export function getSeriesPoints(id: number, samples: boolean, window: SeriesWindow = {}, signal?: AbortSignal): Promise<SeriesPoints> {
  // Asked for, these fields are there (the API leaves out only what is not asked).
  return apiGet("/series/{series_id}/points", { ...pointsRequest(id, samples, window), signal }) as Promise<SeriesPoints>;
}

/** The request's address (index.html may have sent it before the app's code arrived). */
export function seriesPointsUrl(id: number, samples: boolean, window: SeriesWindow = {}): string {
  return apiUrl("/series/{series_id}/points", pointsRequest(id, samples, window));
}

export function seriesPointsQueryOptions(id: number, samples: boolean, window: SeriesWindow = {}) {
  return queryOptions({
    queryKey: seriesKeys.points(id, samples, window.until ?? null, window.limit ?? DEFAULT_WINDOW),
    queryFn: ({ signal }) => getSeriesPoints(id, samples, window, signal),
    // Stepping to another window of the same series keeps the one shown until the next arrives.
    placeholderData: (previous) => (previous?.series.id === id ? previous : undefined),
  });
}

export function useSeriesPoints(id: number, samples: boolean, window: SeriesWindow = {}) {
  return useQuery({ ...seriesPointsQueryOptions(id, samples, window), enabled: Number.isFinite(id) });
}
