// Alert rules: thresholds or mute for the series they match (writes need an admin token).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiSend, type ApiBody, type Schemas } from "../../../api/client";
import { ruleKeys } from "../../../api/query-keys";

export type Rule = Schemas["RuleRead"];
export type RuleCreate = ApiBody<"/alert-rules", "post">;
export type RuleList = Schemas["RuleList"];

export function useRules() {
  return useQuery({ queryKey: ruleKeys.list(), queryFn: ({ signal }) => apiGet("/alert-rules", { signal }) });
}

function useRuleMutation<V, T>(send: (vars: V) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => client.invalidateQueries({ queryKey: ruleKeys.all }) });
}

export function useSaveRule() {
  return useRuleMutation(({ id, body }: { id: number | null; body: RuleCreate }) =>
    id === null ? apiSend("POST", "/alert-rules", { body }) : apiSend("PUT", "/alert-rules/{rule_id}", { path: { rule_id: id }, body }),
  );
}

export function useDeleteRule() {
  return useRuleMutation((id: number) => apiSend("DELETE", "/alert-rules/{rule_id}", { path: { rule_id: id } }));
}
