import { Link } from "react-router-dom";
import { formatTime, shortId, timeAgo } from "../../../lib/format";
import type { AlertDetail } from "../api/get-alert";
import { useSetAlertStatus } from "../api/set-status";
import { StatusBadge } from "./AlertsTable";
import { Triage } from "./Triage";
import { paths } from "../../../lib/paths";

const RESOLUTION: Record<string, string> = {
  stepped_back: "the series stepped back to its level before the change",
  withdrawn: "more points showed the tentative change was not there",
  manual: "resolved by hand",
  not_confirmed: "its confirmation re-ran it and found no change",
  unconfirmed: "its confirmation could not tell (noisy, out of budget, or the job failed)",
  resumed: "the series reports again",
};

function StatusLine({ alert }: { alert: AlertDetail }) {
  const who = alert.status_changed_by ? ` by ${alert.status_changed_by}` : "";
  return (
    <p data-testid="alert-status">
      <StatusBadge status={alert.status} />{" "}
      <span className="muted">
        {alert.status === "open" ? "opened" : alert.status} {timeAgo(alert.status_changed_at)}
        {who} ({formatTime(alert.status_changed_at)})
        {alert.status === "resolved" && alert.resolution && ` — ${RESOLUTION[alert.resolution] ?? alert.resolution}`}
        {alert.resolved_by_run && (
          <>
            {" "}
            (run <Link to={paths.run(alert.resolved_by_run.uuid)}>{shortId(alert.resolved_by_run.uuid)}</Link>)
          </>
        )}
      </span>
    </p>
  );
}

/** Where the alert stands, who moved it there and why, and the buttons that move it on. */
export function AlertStatusCard({ alert }: { alert: AlertDetail }) {
  const triage = useSetAlertStatus(alert.id);
  return (
    <section className="card">
      <h2>Status</h2>
      <StatusLine alert={alert} />
      {alert.note && (
        <blockquote className="note" data-testid="alert-note">
          {alert.note}
        </blockquote>
      )}
      <Triage status={alert.status} mutation={triage} note={alert.note} />
    </section>
  );
}
