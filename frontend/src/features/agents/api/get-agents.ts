import { useQuery } from "@tanstack/react-query";
import { apiGet, type Schemas } from "../../../api/client";
import { choicesOf } from "../../../components/ui/choices";
import { agentKeys } from "../../../api/query-keys";

export type Agent = Schemas["AgentRead"];

export function getAgents(signal?: AbortSignal): Promise<Agent[]> {
  return apiGet("/agents", { signal });
}

/** The agents; `poll` (ms) keeps heartbeats and current jobs fresh on the Agents page. */
export function useAgents(poll: number | false = false) {
  return useQuery({ queryKey: agentKeys.list(), queryFn: ({ signal }) => getAgents(signal), refetchInterval: poll });
}

/** The agents' names as a picker offers them. */
export function useAgentChoices() {
  return useQuery({ queryKey: agentKeys.list(), queryFn: ({ signal }) => getAgents(signal), select: (agents) => choicesOf(agents.map((a) => a.name)) });
}
