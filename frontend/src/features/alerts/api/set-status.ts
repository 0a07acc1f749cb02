// Triage of one alert or of every alert of an incident; both refresh every alert view after.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type ApiBody, type Schemas } from "../../../api/client";
import { alertKeys, incidentKeys, seriesKeys } from "../../../api/query-keys";

export type StatusUpdate = ApiBody<"/alerts/{alert_id}/status", "post">;

export function setAlertStatus(id: number, update: StatusUpdate): Promise<Schemas["AlertRead"]> {
  return apiSend("POST", "/alerts/{alert_id}/status", { path: { alert_id: id }, body: update });
}

export function setIncidentStatus(id: number, update: StatusUpdate): Promise<Schemas["IncidentDetail"]> {
  return apiSend("POST", "/incidents/{incident_id}/status", { path: { incident_id: id }, body: update });
}

function useTriage<T>(send: (update: StatusUpdate) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => Promise.all([alertKeys.all, incidentKeys.all, seriesKeys.allChangePoints()].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
}

export function useSetAlertStatus(id: number) {
  return useTriage((update) => setAlertStatus(id, update));
}

export function useSetIncidentStatus(id: number) {
  return useTriage((update) => setIncidentStatus(id, update));
}
