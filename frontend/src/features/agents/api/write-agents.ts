// Admin writes on agents: enrollment tokens and revocation.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type Schemas } from "../../../api/client";

export type EnrollmentTokenCreate = Schemas["EnrollmentTokenCreate"];
export type EnrollmentTokenCreated = Schemas["EnrollmentTokenCreated"];

export function useCreateEnrollmentToken() {
  return useMutation({ mutationFn: (body: EnrollmentTokenCreate) => apiSend<EnrollmentTokenCreated>("POST", "/agents/enrollment-tokens", body) });
}

export function useRevokeAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiSend<Schemas["AgentRead"]>("POST", `/agents/${encodeURIComponent(name)}/revoke`),
    onSuccess: () => Promise.all(["agents", "jobs", "schedules"].map((key) => client.invalidateQueries({ queryKey: [key] }))),
  });
}
