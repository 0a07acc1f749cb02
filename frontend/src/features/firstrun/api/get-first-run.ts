import { useQuery } from "@tanstack/react-query";
import { apiGet } from "../../../api/client";
import { firstRunAgent } from "../progress";
import { agentKeys, jobKeys } from "../../../api/query-keys";

const POLL_MS = 2000;

/** The agents, asked again every 5 s until the first run's agent is there (it enrolls a few
 * seconds after `make up` starts the server). */
export function useFirstRunAgent() {
  return useQuery({
    // the Agents page's query: one cache, one request
    queryKey: agentKeys.list(),
    queryFn: ({ signal }) => apiGet("/agents", { signal }),
    refetchInterval: (q) => (q.state.data && firstRunAgent(q.state.data) ? false : 5000),
    select: (agents) => firstRunAgent(agents),
  });
}

/** The first run agent's jobs (the first run makes a few dozen); polled every 2 s while any may
 * still change. */
export function useFirstRunJobs(agent: string | null) {
  return useQuery({
    queryKey: jobKeys.list({ agent: agent ?? "", limit: 500 }),
    queryFn: ({ signal }) => apiGet("/jobs", { query: { agent: agent ?? "", limit: 500 }, signal }),
    enabled: agent !== null,
    refetchInterval: (q) => (q.state.data?.items.some((j) => ["queued", "leased", "running"].includes(j.status)) ? POLL_MS : false),
  });
}
