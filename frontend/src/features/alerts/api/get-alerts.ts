import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type Alert = Schemas["AlertRead"];
export type AlertPage = Schemas["AlertPage"];
export type AlertStatus = Alert["status"];

export type AlertsFilter = {
  status?: AlertStatus[];
  workload?: string;
  metric?: string;
  agent?: string;
  label?: string[];
  series_id?: number;
  incident_id?: number;
  limit?: number;
  cursor?: string;
};

export function getAlerts(filter: AlertsFilter, signal?: AbortSignal): Promise<AlertPage> {
  return apiGet<AlertPage>("/alerts", { ...filter, series_id: filter.series_id, incident_id: filter.incident_id }, signal);
}

export function alertsQueryOptions(filter: AlertsFilter) {
  return queryOptions({ queryKey: ["alerts", filter], queryFn: ({ signal }) => getAlerts(filter, signal) });
}

export function useAlerts(filter: AlertsFilter, enabled = true) {
  return useQuery({ ...alertsQueryOptions(filter), enabled, placeholderData: keepPreviousData });
}

/** The newest open alerts: the nav's badge and the Overview's panel share this one request. */
export const OPEN_ALERTS: AlertsFilter = { status: ["open"], limit: 5 };
