import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { runKeys } from "../../../api/query-keys";

export type Run = Schemas["RunRead"];
export type RunResult = Schemas["ResultRead"];

export function getRun(uuid: string, signal?: AbortSignal): Promise<Run> {
  return apiGet("/runs/{run_uuid}", { path: { run_uuid: uuid }, signal });
}

export function runQueryOptions(uuid: string) {
  return queryOptions({ queryKey: runKeys.detail(uuid), queryFn: ({ signal }) => getRun(uuid, signal), staleTime: Infinity });
}

export function useRun(uuid: string) {
  return useQuery(runQueryOptions(uuid));
}
