import { Link, useSearchParams } from "react-router-dom";
import { FilterInput } from "../../components/ui/FilterInput";
import { useAgentChoices } from "../../features/agents";
import { useIncidents } from "../../features/alerts/api/get-incidents";
import { IncidentsList, IncidentStatusTabs } from "../../features/alerts/components/IncidentsList";
import { paths } from "../../lib/paths";

export function Incidents() {
  const [params, setParams] = useSearchParams();
  const status = params.get("status") === "resolved" ? "resolved" : params.get("status") === "all" ? "all" : "open";
  const agent = params.get("agent") ?? "";
  const cursor = params.get("cursor") ?? "";
  const incidents = useIncidents({ status: status === "all" ? undefined : status, agent: agent || undefined, cursor: cursor || undefined, limit: 50 });
  const agents = useAgentChoices().data;
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value && !(key === "status" && value === "open")) next.set(key, value);
    else next.delete(key);
    if (key !== "cursor") next.delete("cursor");
    setParams(next);
  };
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Incidents</h1>
          <p className="muted">Alerts that share a cause (a new kernel, a new fs_version on one host) grouped, to triage together.</p>
        </div>
        <div className="actions">
          <Link className="button" to={paths.alerts()}>
            Alerts
          </Link>
        </div>
      </div>
      <div className="toolbar">
        <IncidentStatusTabs status={status} onSelect={(s) => set("status", s)} />
        <FilterInput label="host" value={agent} placeholder="agent" onApply={(v) => set("agent", v)} choices={agents} testId="incidents-agent" />
      </div>
      <section className="card">
        <IncidentsList incidents={incidents} status={status} onCursor={(c) => set("cursor", c)} />
      </section>
    </div>
  );
}
