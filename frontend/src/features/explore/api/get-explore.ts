import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { exploreKeys } from "../../../api/query-keys";

export type Explore = Schemas["ExploreRead"];
export type ExploreTrace = Schemas["ExploreTrace"];
export type ExplorePoint = Schemas["ExplorePoint"];

export type ExploreQuery = ApiQuery<"/explore">;

export function getExplore(query: ExploreQuery, signal?: AbortSignal): Promise<Explore> {
  return apiGet("/explore", { query, signal });
}

export function exploreQueryOptions(query: ExploreQuery) {
  return queryOptions({ queryKey: exploreKeys.plot(query), queryFn: ({ signal }) => getExplore(query, signal) });
}

export function useExplore(query: ExploreQuery | null) {
  return useQuery({
    ...exploreQueryOptions(query ?? { workload: "", metric: [], x: "time", filter: [] }),
    enabled: query !== null,
    placeholderData: keepPreviousData,
  });
}
