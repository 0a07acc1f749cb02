import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { compareKeys } from "../../../api/query-keys";

export type Compare = Schemas["CompareRead"];
export type CompareMetric = Schemas["CompareMetric"];
export type CompareQuery = { runs: string[]; metric: string[]; minEffect: number | null };

/** The API's query for the page's state (the runs comma-separated, as the page's URL has them). */
export function compareApiQuery(q: CompareQuery): ApiQuery<"/compare"> {
  return { runs: [q.runs.join(",")], metric: q.metric, min_effect: q.minEffect ?? undefined };
}

export function getCompare(q: CompareQuery, signal?: AbortSignal): Promise<Compare> {
  return apiGet("/compare", { query: compareApiQuery(q), signal });
}

export function compareQueryOptions(q: CompareQuery) {
  return queryOptions({ queryKey: compareKeys.runs(q), queryFn: ({ signal }) => getCompare(q, signal) });
}

export function useCompare(q: CompareQuery) {
  return useQuery({ ...compareQueryOptions(q), enabled: q.runs.length >= 2 });
}
