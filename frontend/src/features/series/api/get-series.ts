import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { seriesKeys } from "../../../api/query-keys";

export type Series = Schemas["SeriesRead"];
export type SeriesPage = Schemas["SeriesPage"];

export type SeriesListed = Schemas["SeriesListed"];
/** The series list's orders (the API's `sort`); the page opens on "newest". */
export const SERIES_SORTS = ["newest", "alerts", "points", "name", "id"] as const;
export type SeriesSort = (typeof SERIES_SORTS)[number];
export type SeriesFilter = ApiQuery<"/series">;

export function getSeries(filter: SeriesFilter, signal?: AbortSignal): Promise<SeriesPage> {
  return apiGet("/series", { query: filter, signal });
}

export function seriesQueryOptions(filter: SeriesFilter) {
  return queryOptions({ queryKey: seriesKeys.list(filter), queryFn: ({ signal }) => getSeries(filter, signal) });
}

export function useSeriesList(filter: SeriesFilter, enabled = true) {
  return useQuery({ ...seriesQueryOptions(filter), enabled });
}
