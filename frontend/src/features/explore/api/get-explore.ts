import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type Explore = Schemas["ExploreRead"];
export type ExploreTrace = Schemas["ExploreTrace"];
export type ExplorePoint = Schemas["ExplorePoint"];

export type ExploreQuery = {
  workload: string;
  metric: string;
  x: string;
  group?: string;
  filter: string[];
  exact?: boolean;
  order?: string[];
  split?: string[];
  pool?: string[];
};

export function getExplore(query: ExploreQuery, signal?: AbortSignal): Promise<Explore> {
  return apiGet<Explore>("/explore", { ...query }, signal);
}

export function exploreQueryOptions(query: ExploreQuery) {
  return queryOptions({ queryKey: ["explore", query], queryFn: ({ signal }) => getExplore(query, signal) });
}

export function useExplore(query: ExploreQuery | null) {
  return useQuery({
    ...exploreQueryOptions(query ?? { workload: "", metric: "", x: "time", filter: [] }),
    enabled: query !== null,
    placeholderData: keepPreviousData,
  });
}
