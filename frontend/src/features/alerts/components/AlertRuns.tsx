import { Link } from "react-router-dom";
import { formatTime, shortId } from "../../../lib/format";
import type { AlertDetail } from "../api/get-alert";
import { paths } from "../../../lib/paths";

/** The last run before the change, the first after it, and the incident the alert is part of. */
export function AlertRuns({ alert }: { alert: AlertDetail }) {
  const before = alert.previous_run;
  const after = alert.change_run;
  return (
    <section className="card">
      <h2>Runs either side</h2>
      <dl className="kv">
        <div>
          <dt>last run before</dt>
          <dd>
            {before ? (
              <>
                <Link className="mono" to={paths.run(before.uuid)}>
                  {shortId(before.uuid)}
                </Link>{" "}
                <span className="muted small">{formatTime(before.started_at)}</span>
              </>
            ) : (
              <span className="muted">none (the change is at the series' start)</span>
            )}
          </dd>
        </div>
        <div>
          <dt>first run after</dt>
          <dd>
            <Link className="mono" to={paths.run(after.uuid)}>
              {shortId(after.uuid)}
            </Link>{" "}
            <span className="muted small">{formatTime(after.started_at)}</span>
          </dd>
        </div>
        <div>
          <dt>incident</dt>
          <dd>
            {alert.incident_id !== null ? (
              <Link to={paths.incident(alert.incident_id)}>incident #{alert.incident_id}</Link>
            ) : (
              <span className="muted">none</span>
            )}
          </dd>
        </div>
      </dl>
    </section>
  );
}
