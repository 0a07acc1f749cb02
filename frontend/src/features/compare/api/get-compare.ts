import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type Compare = Schemas["CompareRead"];
export type CompareMetric = Schemas["CompareMetric"];

export function getCompare(runs: string[], signal?: AbortSignal): Promise<Compare> {
  return apiGet<Compare>("/compare", { runs: runs.join(",") }, signal);
}

export function compareQueryOptions(runs: string[]) {
  return queryOptions({ queryKey: ["compare", runs], queryFn: ({ signal }) => getCompare(runs, signal) });
}

export function useCompare(runs: string[]) {
  return useQuery({ ...compareQueryOptions(runs), enabled: runs.length >= 2 });
}
