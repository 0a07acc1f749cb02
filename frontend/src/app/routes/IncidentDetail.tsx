import { Link, useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useIncident, type IncidentDetail as Detail } from "../../features/alerts/api/get-incidents";
import { useSetIncidentStatus } from "../../features/alerts/api/set-status";
import type { AlertStatus } from "../../features/alerts/api/get-alerts";
import { AlertsTable } from "../../features/alerts/components/AlertsTable";
import { CauseTable } from "../../features/alerts/components/CauseTable";
import { Triage } from "../../features/alerts/components/Triage";
import { STATUS_LABEL, STATUSES } from "../../features/alerts/format";
import { formatTime, timeAgo } from "../../lib/format";

/** The one status every unresolved alert has, or null when they differ. */
function commonStatus(incident: Detail): AlertStatus | null {
  const statuses = new Set(incident.alerts.map((a) => a.status).filter((s) => s !== "resolved"));
  if (statuses.size === 0) return incident.alerts.length > 0 ? "resolved" : null;
  return statuses.size === 1 ? ([...statuses][0] ?? null) : null;
}

function IncidentBody({ incident }: { incident: Detail }) {
  const triage = useSetIncidentStatus(incident.id);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>
            Incident #{incident.id}: {incident.title}
          </h1>
          <p className="muted" data-testid="incident-status">
            <span className={`badge status-${incident.status}`}>{incident.status}</span> since the change at {formatTime(incident.opened_at)} ({timeAgo(incident.opened_at)})
            {incident.agent && ` on ${incident.agent}`}
            {incident.resolved_at && ` · resolved ${formatTime(incident.resolved_at)}`} ·{" "}
            {STATUSES.filter((s) => (incident.alert_counts[s] ?? 0) > 0)
              .map((s) => `${incident.alert_counts[s]} ${STATUS_LABEL[s].toLowerCase()}`)
              .join(", ")}
          </p>
        </div>
      </div>
      <div className="grid-2">
        <section className="card">
          <h2>What changed</h2>
          <CauseTable cause={incident.cause} />
        </section>
        <section className="card">
          <h2>Triage every alert</h2>
          <p className="muted small">Acts on all of this incident's alerts (resolved ones stay resolved) and sends one notification.</p>
          <Triage status={commonStatus(incident)} mutation={triage} scope="all" />
        </section>
      </div>
      <section className="card">
        <h2>Alerts</h2>
        <AlertsTable alerts={incident.alerts} showStatus showIncident={false} />
      </section>
    </>
  );
}

export function IncidentDetail() {
  const { id = "" } = useParams();
  const incident = useIncident(Number(id));
  return (
    <div className="page">
      <p className="crumbs">
        <Link to="/incidents">← Incidents</Link>
      </p>
      <QueryView query={incident} what={`incident ${id}`}>
        {(data) => <IncidentBody incident={data} />}
      </QueryView>
    </div>
  );
}
