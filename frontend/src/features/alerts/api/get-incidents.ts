import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, type ApiQuery, type Schemas } from "../../../api/client";
import { incidentKeys } from "../../../api/query-keys";

export type Incident = Schemas["IncidentRead"];
export type IncidentPage = Schemas["IncidentPage"];
export type IncidentDetail = Schemas["IncidentDetail"];

export type IncidentsFilter = ApiQuery<"/incidents">;

export function getIncidents(filter: IncidentsFilter, signal?: AbortSignal): Promise<IncidentPage> {
  return apiGet("/incidents", { query: filter, signal });
}

export function useIncidents(filter: IncidentsFilter) {
  return useQuery({
    ...queryOptions({ queryKey: incidentKeys.list(filter), queryFn: ({ signal }) => getIncidents(filter, signal) }),
    placeholderData: keepPreviousData,
  });
}

export function getIncident(id: number, signal?: AbortSignal): Promise<IncidentDetail> {
  return apiGet("/incidents/{incident_id}", { path: { incident_id: id }, signal });
}

export function useIncident(id: number) {
  return useQuery({ queryKey: incidentKeys.detail(id), queryFn: ({ signal }) => getIncident(id, signal), enabled: Number.isFinite(id) });
}
