import { Link } from "react-router-dom";
import { Empty, QueryView } from "../../../components/ui/States";
import { useAgents } from "../api/get-agents";
import { AgentsTable } from "./AgentsTable";
import { paths } from "../../../lib/paths";

/** The agents in brief, for the Overview. */
export function AgentsPanel() {
  const agents = useAgents();
  return (
    <section className="card">
      <div className="card-head">
        <h2>Agents</h2>
        <Link to={paths.agents()}>all agents →</Link>
      </div>
      <QueryView query={agents} what="agents">
        {(list) => (list.length === 0 ? <Empty title="No agent has uploaded a run yet." /> : <AgentsTable agents={list} compact />)}
      </QueryView>
    </section>
  );
}
