import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";

export type RunSummary = Schemas["RunSummary"];
export type RunPage = Schemas["RunPage"];

export type RunsFilter = ApiQuery<"/runs">;

export function getRuns(filter: RunsFilter, signal?: AbortSignal): Promise<RunPage> {
  return apiGet("/runs", { query: filter, signal });
}

export function runsQueryOptions(filter: RunsFilter) {
  return queryOptions({ queryKey: ["runs", filter], queryFn: ({ signal }) => getRuns(filter, signal) });
}

export function useRuns(filter: RunsFilter) {
  return useQuery(runsQueryOptions(filter));
}
