// Admin writes on agents: enrollment tokens and revocation.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type ApiBody, type Schemas } from "../../../api/client";
import { agentKeys, jobKeys, scheduleKeys } from "../../../api/query-keys";

export type EnrollmentTokenCreate = ApiBody<"/agents/enrollment-tokens", "post">;
export type EnrollmentTokenCreated = Schemas["EnrollmentTokenCreated"];

export function useCreateEnrollmentToken() {
  return useMutation({ mutationFn: (body: EnrollmentTokenCreate) => apiSend("POST", "/agents/enrollment-tokens", { body }) });
}

export function useRevokeAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiSend("POST", "/agents/{name}/revoke", { path: { name } }),
    onSuccess: () => Promise.all([agentKeys.all, jobKeys.all, scheduleKeys.all].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
}
