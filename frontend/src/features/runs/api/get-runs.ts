import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { runKeys } from "../../../api/query-keys";

export type RunSummary = Schemas["RunSummary"];
export type RunPage = Schemas["RunPage"];

export type RunsFilter = ApiQuery<"/runs">;

export function getRuns(filter: RunsFilter, signal?: AbortSignal): Promise<RunPage> {
  return apiGet("/runs", { query: filter, signal });
}

export function runsQueryOptions(filter: RunsFilter) {
  return queryOptions({ queryKey: runKeys.list(filter), queryFn: ({ signal }) => getRuns(filter, signal) });
}

export function useRuns(filter: RunsFilter) {
  return useQuery(runsQueryOptions(filter));
}
