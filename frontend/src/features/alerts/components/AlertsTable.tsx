import { Link, useNavigate } from "react-router-dom";
import { formatPairs, formatPercent, formatTime, timeAgo } from "../../../lib/format";
import type { Alert } from "../api/get-alerts";
import { confirmingText } from "../confirmation";
import { causeSummary, changeTone, confidenceText, levelText, seriesTitle, STATUS_LABEL } from "../format";
import { paths } from "../../../lib/paths";

export function StatusBadge({ status }: { status: Alert["status"] }) {
  return <span className={`badge status-${status}`}>{STATUS_LABEL[status]}</span>;
}

/** Alerts as rows; a click anywhere on a row opens the alert (links inside keep their own target). */
export function AlertsTable({ alerts, showStatus = false, showIncident = true }: { alerts: Alert[]; showStatus?: boolean; showIncident?: boolean }) {
  const navigate = useNavigate();
  return (
    <table className="table alerts-table" data-testid="alerts-table">
      <thead>
        <tr>
          <th>series</th>
          <th className="num">change</th>
          <th>before → after</th>
          <th className="num">confidence</th>
          <th>when</th>
          <th>cause</th>
          {showStatus && <th>status</th>}
          {showIncident && <th>incident</th>}
        </tr>
      </thead>
      <tbody>
        {alerts.map((a) => (
          <tr
            key={a.id}
            className="clickable"
            data-alert-id={a.id}
            onClick={(e) => {
              if ((e.target as HTMLElement).closest("a, button")) return;
              navigate(paths.alert(a.id));
            }}
          >
            <td>
              <Link to={paths.alert(a.id)} className="strong">
                {seriesTitle(a.series)}
              </Link>
              <div className="muted mono small">
                {a.series.target} {formatPairs(a.series.parameters)} {formatPairs(a.series.labels)}
              </div>
              {a.status === "confirming" && (
                <div className="small" data-testid="confirming-note">
                  {a.confirmation ? (
                    <Link className="badge status-confirming" to={paths.job(a.confirmation.job_id)} title="the job re-running it before anyone is told">
                      {confirmingText(a.confirmation)}
                    </Link>
                  ) : (
                    <span className="badge status-confirming">{confirmingText(null)}</span>
                  )}
                </div>
              )}
            </td>
            <td className={`num nowrap diff tone-${changeTone(a.kind, a.change_pct)}`} title={a.kind}>
              {a.kind === "regression" ? "▼ " : "▲ "}
              {formatPercent(a.change_pct)}
            </td>
            <td className="nowrap">{levelText(a.before, a.after, a.series.unit)}</td>
            <td className="num">{confidenceText(a.confidence)}</td>
            <td className="nowrap" title={formatTime(a.change_at)}>
              {timeAgo(a.change_at)}
              {a.tentative && (
                <>
                  {" "}
                  <span className="badge warn" title={`only ${a.points_after} points after the change: it may still move`}>
                    tentative
                  </span>
                </>
              )}
            </td>
            <td className="small">{causeSummary(a.cause) || <span className="muted">none seen</span>}</td>
            {showStatus && (
              <td>
                <StatusBadge status={a.status} />
              </td>
            )}
            {showIncident && (
              <td>{a.incident_id !== null ? <Link to={paths.incident(a.incident_id)}>#{a.incident_id}</Link> : <span className="muted">–</span>}</td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
