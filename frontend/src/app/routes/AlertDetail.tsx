import { useCallback, useMemo } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { Plot, type PointClick } from "../../components/charts/Plot";
import { QueryView } from "../../components/ui/States";
import { useAlert, type AlertDetail as Detail } from "../../features/alerts/api/get-alert";
import { useSetAlertStatus } from "../../features/alerts/api/set-status";
import { StatusBadge } from "../../features/alerts/components/AlertsTable";
import { CauseTable } from "../../features/alerts/components/CauseTable";
import { DifferencesTable } from "../../features/alerts/components/DifferencesTable";
import { Triage } from "../../features/alerts/components/Triage";
import { alertFigure } from "../../features/alerts/figures";
import { changeSummary, changeTone, confidenceText, levelText, seriesTitle } from "../../features/alerts/format";
import { formatTime, formatValue, shortId, timeAgo } from "../../lib/format";
import { useTheme } from "../../lib/use-theme";

const RESOLUTION: Record<string, string> = {
  stepped_back: "the series stepped back to its level before the change",
  withdrawn: "more points showed the tentative change was not there",
  manual: "resolved by hand",
};

function StatusLine({ alert }: { alert: Detail }) {
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
            (run <Link to={`/runs/${alert.resolved_by_run.uuid}`}>{shortId(alert.resolved_by_run.uuid)}</Link>)
          </>
        )}
      </span>
    </p>
  );
}

function AlertBody({ alert }: { alert: Detail }) {
  const { theme } = useTheme();
  const navigate = useNavigate();
  const triage = useSetAlertStatus(alert.id);
  const figure = useMemo(() => alertFigure(alert, theme), [alert, theme]);
  const onClick = useCallback((p: PointClick) => typeof p.customdata === "string" && navigate(`/runs/${p.customdata}`), [navigate]);
  const s = alert.series;
  const before = alert.previous_run;
  const after = alert.change_run;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>
            <span className={`diff tone-text-${changeTone(alert.kind, alert.change_pct)}`}>{changeSummary(alert.kind, alert.change_pct)}</span>{" "}
            <span className="muted">in</span> {seriesTitle(s)}
          </h1>
          <p className="muted mono small">
            alert #{alert.id} · {s.target}{" "}
            {Object.entries(s.parameters)
              .map(([k, v]) => `${k}=${formatValue(v)}`)
              .join(" ")}{" "}
            {Object.entries(s.labels)
              .map(([k, v]) => `${k}=${v}`)
              .join(" ")}
          </p>
        </div>
        <div className="actions">
          <Link className="button" to={`/series/${s.id}`}>
            Series history
          </Link>
          {before && (
            <Link className="button" to={`/compare?runs=${before.uuid},${after.uuid}`}>
              Compare the two runs
            </Link>
          )}
        </div>
      </div>
      <div className="grid-2">
        <section className="card">
          <p className="summary-line" data-testid="alert-summary">
            <strong>{levelText(alert.before, alert.after, s.unit)}</strong> · confidence {confidenceText(alert.confidence)} · changed{" "}
            {formatTime(alert.change_at)}
            {alert.tentative && (
              <>
                {" "}
                <span className="badge warn">tentative: only {alert.points_after} points after the change, it may still move</span>
              </>
            )}
          </p>
          <Plot figure={figure} onPointClick={onClick} label={`the series around alert ${alert.id}`} height={400} />
          <p className="muted small">
            Each point is one run's median, the bars its p5–p95; the vertical line is the change, the dotted lines the levels before and
            after. Click a point to open its run.
          </p>
        </section>
        <div className="stack">
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
          <section className="card">
            <h2>Runs either side</h2>
            <dl className="kv">
              <div>
                <dt>last run before</dt>
                <dd>
                  {before ? (
                    <>
                      <Link className="mono" to={`/runs/${before.uuid}`}>
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
                  <Link className="mono" to={`/runs/${after.uuid}`}>
                    {shortId(after.uuid)}
                  </Link>{" "}
                  <span className="muted small">{formatTime(after.started_at)}</span>
                </dd>
              </div>
              <div>
                <dt>incident</dt>
                <dd>{alert.incident_id !== null ? <Link to={`/incidents/${alert.incident_id}`}>incident #{alert.incident_id}</Link> : <span className="muted">none</span>}</dd>
              </div>
            </dl>
          </section>
        </div>
      </div>
      <div className="grid-2 even">
        <section className="card">
          <h2>What differs between the two runs</h2>
          <DifferencesTable alert={alert} />
        </section>
        <section className="card">
          <h2>Likely cause</h2>
          <p className="muted small">What changed with the step, from the environments and labels of the runs around it.</p>
          <CauseTable cause={alert.cause} />
        </section>
      </div>
    </>
  );
}

export function AlertDetail() {
  const { id = "" } = useParams();
  const alert = useAlert(Number(id));
  return (
    <div className="page">
      <p className="crumbs">
        <Link to="/alerts">← Alerts</Link>
      </p>
      <QueryView query={alert} what={`alert ${id}`}>
        {(data) => <AlertBody alert={data} />}
      </QueryView>
    </div>
  );
}
