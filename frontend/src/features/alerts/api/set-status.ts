// Triage of one alert or of every alert of an incident; both refresh every alert view after.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type Schemas } from "../../../api/client";
import type { AlertStatus } from "./get-alerts";

export type StatusUpdate = { status: AlertStatus; note?: string | null };

export function setAlertStatus(id: number, update: StatusUpdate): Promise<Schemas["AlertRead"]> {
  return apiSend("POST", `/alerts/${id}/status`, update);
}

export function setIncidentStatus(id: number, update: StatusUpdate): Promise<Schemas["IncidentDetail"]> {
  return apiSend("POST", `/incidents/${id}/status`, update);
}

function useTriage<T>(send: (update: StatusUpdate) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => Promise.all(["alerts", "alert", "incidents", "incident", "change-points"].map((key) => client.invalidateQueries({ queryKey: [key] }))),
  });
}

export function useSetAlertStatus(id: number) {
  return useTriage((update) => setAlertStatus(id, update));
}

export function useSetIncidentStatus(id: number) {
  return useTriage((update) => setIncidentStatus(id, update));
}
