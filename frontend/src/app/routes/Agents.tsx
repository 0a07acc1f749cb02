import { useAgents } from "../../features/agents/api/get-agents";
import { AgentsTable } from "../../features/agents/components/AgentsTable";
import { EnrollmentDialog } from "../../features/agents/components/EnrollmentDialog";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { Empty, QueryView } from "../../components/ui/States";

export function Agents() {
  // heartbeats come every 15 s and jobs move: poll so "online" and progress stay true
  const agents = useAgents(5000);
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Agents</h1>
          <p className="muted">
            Every machine that has uploaded runs or enrolled, most recently seen first. Enrolled agents take jobs from schedules; they are online while their
            heartbeat is under 45 s old.
          </p>
        </div>
        <div className="actions">
          <EnrollmentDialog />
        </div>
      </div>
      <section className="card">
        <QueryView query={agents} what="agents">
          {(list) =>
            list.length === 0 ? (
              <Empty title="No agent has uploaded a run or enrolled yet.">
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
