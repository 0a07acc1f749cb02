import { formatTime, timeAgo } from "../../../lib/format";
import type { AlertStatus } from "../api/get-alerts";
import type { IncidentDetail } from "../api/get-incidents";
import { useSetIncidentStatus } from "../api/set-status";
import { STATUS_LABEL, STATUSES } from "../format";
import { Triage } from "./Triage";

/** The one status every unresolved alert has, or null when they differ. */
export function commonStatus(incident: Pick<IncidentDetail, "alerts">): AlertStatus | null {
  const statuses = new Set(incident.alerts.map((a) => a.status).filter((s) => s !== "resolved"));
  if (statuses.size === 0) return incident.alerts.length > 0 ? "resolved" : null;
  return statuses.size === 1 ? ([...statuses][0] ?? null) : null;
}

export function IncidentHeader({ incident }: { incident: IncidentDetail }) {
  return (
    <div className="page-head">
      <div>
        <h1>
          Incident #{incident.id}: {incident.title}
        </h1>
        <p className="muted" data-testid="incident-status">
          <span className={`badge status-${incident.status}`}>{incident.status}</span> since the change at {formatTime(incident.opened_at)} (
          {timeAgo(incident.opened_at)}){incident.agent && ` on ${incident.agent}`}
          {incident.resolved_at && ` · resolved ${formatTime(incident.resolved_at)}`} ·{" "}
          {STATUSES.filter((s) => (incident.alert_counts[s] ?? 0) > 0)
            .map((s) => `${incident.alert_counts[s]} ${STATUS_LABEL[s].toLowerCase()}`)
            .join(", ")}
        </p>
      </div>
    </div>
  );
}

/** Triage of every alert of the incident at once. */
export function IncidentTriage({ incident }: { incident: IncidentDetail }) {
  const triage = useSetIncidentStatus(incident.id);
  return (
    <section className="card">
      <h2>Triage every alert</h2>
      <p className="muted small">Acts on all of this incident's alerts (resolved ones stay resolved) and sends one notification.</p>
      <Triage status={commonStatus(incident)} mutation={triage} scope="all" />
    </section>
  );
}
