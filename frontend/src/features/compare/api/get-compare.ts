import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type Compare = Schemas["CompareRead"];
export type CompareMetric = Schemas["CompareMetric"];
export type CompareQuery = { runs: string[]; metric: string[]; minEffect: number | null };

function params(q: CompareQuery) {
  return { runs: q.runs.join(","), metric: q.metric, min_effect: q.minEffect ?? undefined };
}

export function getCompare(q: CompareQuery, signal?: AbortSignal): Promise<Compare> {
  return apiGet<Compare>("/compare", params(q), signal);
}

export function compareCsvQuery(q: CompareQuery) {
  return params(q);
}

export function compareQueryOptions(q: CompareQuery) {
  return queryOptions({ queryKey: ["compare", q], queryFn: ({ signal }) => getCompare(q, signal) });
}

export function useCompare(q: CompareQuery) {
  return useQuery({ ...compareQueryOptions(q), enabled: q.runs.length >= 2 });
}
