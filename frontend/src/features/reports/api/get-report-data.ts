import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { reportKeys } from "../../../api/query-keys";

export type ReportData = Schemas["ReportData"];
export type Report = Schemas["ReportRead"];
export type BlockData = Schemas["BlockData"];

/** The report with every block's data, as each block's page would answer it. */
export function getReportData(slug: string, signal?: AbortSignal): Promise<ReportData> {
  return apiGet("/reports/{slug}/data", { path: { slug }, signal });
}

export function reportDataQueryOptions(slug: string) {
  return queryOptions({ queryKey: reportKeys.data(slug), queryFn: ({ signal }) => getReportData(slug, signal) });
}

export function useReportData(slug: string) {
  return useQuery({ ...reportDataQueryOptions(slug), enabled: slug !== "" });
}

export function getReport(slug: string, signal?: AbortSignal): Promise<Report> {
  return apiGet("/reports/{slug}", { path: { slug }, signal });
}

export function useReport(slug: string) {
  return useQuery({ queryKey: reportKeys.detail(slug), queryFn: ({ signal }) => getReport(slug, signal), enabled: slug !== "" });
}
