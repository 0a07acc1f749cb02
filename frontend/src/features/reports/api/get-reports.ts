import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { reportKeys } from "../../../api/query-keys";

export type ReportSummary = Schemas["ReportSummary"];

export function getReports(signal?: AbortSignal): Promise<Schemas["ReportList"]> {
  return apiGet("/reports", { signal });
}

export function reportsQueryOptions() {
  return queryOptions({ queryKey: reportKeys.list(), queryFn: ({ signal }) => getReports(signal) });
}

export function useReports() {
  return useQuery(reportsQueryOptions());
}
