import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { alertKeys } from "../../../api/query-keys";

export type Alert = Schemas["AlertRead"];
export type AlertPage = Schemas["AlertPage"];
export type AlertStatus = Alert["status"];

export type AlertsFilter = ApiQuery<"/alerts">;

export function getAlerts(filter: AlertsFilter, signal?: AbortSignal): Promise<AlertPage> {
  return apiGet("/alerts", { query: filter, signal });
}

export function alertsQueryOptions(filter: AlertsFilter) {
  return queryOptions({ queryKey: alertKeys.list(filter), queryFn: ({ signal }) => getAlerts(filter, signal) });
}

export function useAlerts(filter: AlertsFilter, enabled = true) {
  return useQuery({ ...alertsQueryOptions(filter), enabled, placeholderData: keepPreviousData });
}

/** The newest open alerts: the nav's badge and the Overview's panel share this one request. */
export const OPEN_ALERTS: AlertsFilter = { status: ["open"], limit: 5 };
