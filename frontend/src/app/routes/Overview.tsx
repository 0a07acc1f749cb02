import { Link } from "react-router-dom";
import { useRuns } from "../../features/runs/api/get-runs";
import { RunsTable } from "../../features/runs/components/RunsTable";
import { useAgents } from "../../features/agents/api/get-agents";
import { AgentsTable } from "../../features/agents/components/AgentsTable";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { Empty, ErrorState, QueryView } from "../../components/ui/States";
import { ApiError } from "../../api/client";
import { exploreSearch, parseExploreState } from "../../features/explore/url-state";

export function Overview() {
  const runs = useRuns({ limit: 15 });
  const agents = useAgents();
  const workloads = [...new Set((runs.data?.items ?? []).map((r) => r.workload))];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Overview</h1>
        <div className="actions">
          <Link className="button primary" to="/explore">
            Explore results
          </Link>
          <Link className="button" to="/compare">
            Compare runs
          </Link>
        </div>
      </div>
      {workloads.length > 0 && (
        <p className="quick">
          Plot a workload:{" "}
          {workloads.map((w) => (
            <Link key={w} className="chip" to={`/explore?${exploreSearch({ ...parseExploreState(new URLSearchParams()), workload: w })}`}>
              {w}
            </Link>
          ))}
        </p>
      )}
      {runs.error instanceof ApiError && runs.error.needsToken ? (
        <ErrorState error={runs.error} what="this PerfAtlas server" />
      ) : (
      <div className="grid-2">
        <section className="card">
          <div className="card-head">
            <h2>Recent runs</h2>
            <Link to="/runs">all runs →</Link>
          </div>
          <QueryView query={runs} what="recent runs">
            {(page) =>
              page.items.length === 0 ? (
                <Empty title="No runs yet.">
                  <AgentHelp />
                </Empty>
              ) : (
                <RunsTable runs={page.items} compact />
              )
            }
          </QueryView>
        </section>
        <section className="card">
          <div className="card-head">
            <h2>Agents</h2>
            <Link to="/agents">all agents →</Link>
          </div>
          <QueryView query={agents} what="agents">
            {(list) => (list.length === 0 ? <Empty title="No agent has uploaded a run yet." /> : <AgentsTable agents={list} compact />)}
          </QueryView>
        </section>
      </div>
      )}
    </div>
  );
}
