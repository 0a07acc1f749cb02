import { Link, useSearchParams } from "react-router-dom";
import { useIncidents } from "../../features/alerts/api/get-incidents";
import { causeSummary, STATUS_LABEL, STATUSES } from "../../features/alerts/format";
import { Empty, QueryView } from "../../components/ui/States";
import { formatTime, timeAgo } from "../../lib/format";
import { NoAlertsHelp } from "./Alerts";

export function Incidents() {
  const [params, setParams] = useSearchParams();
  const status = params.get("status") === "resolved" ? "resolved" : params.get("status") === "all" ? "all" : "open";
  const agent = params.get("agent") ?? "";
  const cursor = params.get("cursor") ?? "";
  const incidents = useIncidents({ status: status === "all" ? undefined : status, agent: agent || undefined, cursor: cursor || undefined, limit: 50 });
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
          <Link className="button" to="/alerts">
            Alerts
          </Link>
        </div>
      </div>
      <div className="toolbar">
        <div className="tabs" role="tablist" aria-label="Incident status">
          {(["open", "resolved", "all"] as const).map((s) => (
            <button key={s} type="button" role="tab" aria-selected={status === s} className={status === s ? "tab active" : "tab"} onClick={() => set("status", s)}>
              {s === "all" ? "All" : s === "open" ? "Open" : "Resolved"}
            </button>
          ))}
        </div>
        <label className="field inline">
          <span>host</span>
          <input key={`a-${agent}`} defaultValue={agent} placeholder="agent" onBlur={(e) => set("agent", e.target.value.trim())} onKeyDown={(e) => e.key === "Enter" && set("agent", e.currentTarget.value.trim())} />
        </label>
      </div>
      <section className="card">
        <QueryView query={incidents} what="incidents">
          {(page) =>
            page.items.length === 0 ? (
              <Empty title={status === "open" ? "No open incidents." : "No incidents."}>
                {status === "open" ? (
                  <p className="state-body">
                    An incident opens when an alert does; alerts with the same cause on the same host join it. See{" "}
                    <Link to="/incidents?status=all">every incident</Link> or <Link to="/alerts">the alerts</Link>.
                  </p>
                ) : (
                  <NoAlertsHelp />
                )}
              </Empty>
            ) : (
              <>
                <table className="table" data-testid="incidents-table">
                  <thead>
                    <tr>
                      <th>incident</th>
                      <th>host</th>
                      <th>cause</th>
                      <th>alerts</th>
                      <th>opened</th>
                      <th>status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((i) => (
                      <tr key={i.id}>
                        <td>
                          <Link to={`/incidents/${i.id}`} className="strong">
                            #{i.id} {i.title}
                          </Link>
                        </td>
                        <td>{i.agent ?? <span className="muted" title="the incident is not tied to one host">–</span>}</td>
                        <td className="small">{causeSummary(i.cause, 3) || <span className="muted">unknown</span>}</td>
                        <td className="small">
                          {STATUSES.filter((s) => (i.alert_counts[s] ?? 0) > 0)
                            .map((s) => `${i.alert_counts[s]} ${STATUS_LABEL[s].toLowerCase()}`)
                            .join(", ")}
                        </td>
                        <td className="nowrap" title={formatTime(i.opened_at)}>
                          {timeAgo(i.opened_at)}
                        </td>
                        <td>
                          <span className={`badge status-${i.status}`}>{i.status}</span>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {page.next_cursor && (
                  <div className="pager">
                    <button type="button" className="button small" onClick={() => set("cursor", page.next_cursor ?? "")}>
                      Older →
                    </button>
                  </div>
                )}
              </>
            )
          }
        </QueryView>
      </section>
    </div>
  );
}
