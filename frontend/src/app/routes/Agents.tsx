import { useAgents } from "../../features/agents/api/get-agents";
import { AgentsTable } from "../../features/agents/components/AgentsTable";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { Empty, QueryView } from "../../components/ui/States";

export function Agents() {
  const agents = useAgents();
  return (
    <div className="page">
      <div className="page-head">
        <h1>Agents</h1>
      </div>
      <p className="muted">Every machine that has uploaded runs, most recently seen first.</p>
      <section className="card">
        <QueryView query={agents} what="agents">
          {(list) =>
            list.length === 0 ? (
              <Empty title="No agent has uploaded a run yet.">
                <AgentHelp />
              </Empty>
            ) : (
              <AgentsTable agents={list} />
            )
          }
        </QueryView>
      </section>
    </div>
  );
}
