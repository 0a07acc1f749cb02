import { useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";

export type Agent = Schemas["AgentRead"];

export function getAgents(signal?: AbortSignal): Promise<Agent[]> {
  return apiGet<Agent[]>("/agents", {}, signal);
}

export function useAgents() {
  return useQuery({ queryKey: ["agents"], queryFn: ({ signal }) => getAgents(signal) });
}
