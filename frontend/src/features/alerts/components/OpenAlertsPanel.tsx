import { Link } from "react-router-dom";
import { QueryView } from "../../../components/ui/States";
import { formatPercent, timeAgo } from "../../../lib/format";
import { OPEN_ALERTS, useAlerts } from "../api/get-alerts";
import { causeSummary, changeTone, seriesTitle } from "../format";
import { paths } from "../../../lib/paths";

/** The newest open alerts, for the Overview. */
export function OpenAlertsPanel() {
  const alerts = useAlerts(OPEN_ALERTS);
  return (
    <section className="card" data-testid="open-alerts-panel">
      <div className="card-head">
        <h2>Open alerts {alerts.data && <span className={alerts.data.counts.open ? "count-pill hot" : "count-pill"}>{alerts.data.counts.open ?? 0}</span>}</h2>
        <Link to={paths.alerts()}>all alerts →</Link>
      </div>
      <QueryView query={alerts} what="open alerts">
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">
              {Object.values(page.counts).some((n) => n > 0)
                ? "Nothing to triage."
                : "No alerts yet: they open when the worker (perfatlas worker) finds a lasting change in a series."}
            </p>
          ) : (
            <ul className="alert-list">
              {page.items.map((a) => (
                <li key={a.id}>
                  <Link to={paths.alert(a.id)}>
                    <span className={`diff tone-text-${changeTone(a.kind, a.change_pct)}`}>{formatPercent(a.change_pct)}</span> {seriesTitle(a.series)}
                  </Link>
                  <div className="muted small">
                    {timeAgo(a.change_at)}
                    {a.cause ? ` · ${causeSummary(a.cause, 1)}` : ""}
                    {a.tentative ? " · tentative" : ""}
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}
