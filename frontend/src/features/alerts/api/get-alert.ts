import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { alertKeys } from "../../../api/query-keys";

export type AlertDetail = Schemas["AlertDetail"];
export type Change = Schemas["Change"];

export function getAlert(id: number, signal?: AbortSignal): Promise<AlertDetail> {
  return apiGet("/alerts/{alert_id}", { path: { alert_id: id }, signal });
}

export function alertQueryOptions(id: number) {
  return queryOptions({ queryKey: alertKeys.detail(id), queryFn: ({ signal }) => getAlert(id, signal) });
}

export function useAlert(id: number) {
  return useQuery({ ...alertQueryOptions(id), enabled: Number.isFinite(id) });
}
