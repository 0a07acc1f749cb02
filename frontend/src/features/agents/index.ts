// What other features may use of agents; the rest of features/agents is its own.
export { useAgentChoices, useAgents, type Agent } from "./api/get-agents";
