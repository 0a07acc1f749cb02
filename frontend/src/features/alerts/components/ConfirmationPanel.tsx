import { useCallback, useMemo } from "react";
import { Link, useNavigate } from "react-router-dom";
import { Plot, type PointClick } from "../../../components/charts/Plot";
import { formatNumber, shortId } from "../../../lib/format";
import { useTheme } from "../../../lib/use-theme";
import type { AlertDetail } from "../api/get-alert";
import { confirmationFigure, levelWithUnit, signedChangeText, VARIANT_LABEL, verdictText, withRounds, type Confirmation } from "../confirmation";
import { paths } from "../../../lib/paths";

function tone(c: Confirmation): string {
  if (c.verdict === "different") return "tone-text-worse";
  if (c.verdict === "same") return "tone-text-better";
  return "";
}

/** The re-run of a regression before it alerted: the verdict in words, the numbers the test
 * compared, a strip plot of every repetition by round, and each run. */
export function ConfirmationPanel({ alert }: { alert: AlertDetail }) {
  const { theme } = useTheme();
  const navigate = useNavigate();
  const c = alert.confirmation;
  const unit = alert.series.unit;
  const figure = useMemo(() => (c ? confirmationFigure(c, unit, theme) : null), [c, unit, theme]);
  const onClick = useCallback((p: PointClick) => typeof p.customdata === "string" && navigate(paths.run(p.customdata)), [navigate]);
  if (!c || !figure) return null;
  const runs = withRounds(c.runs);
  const baseline = c.mode === "baseline" ? "baseline (old) median" : "history median (before the change)";
  return (
    <section className="card" data-testid="confirmation">
      <h2>Confirmation</h2>
      <p className={`summary-line strong ${tone(c)}`} data-testid="confirmation-verdict">
        {verdictText(c, alert.series.direction)}
      </p>
      <div className="grid-2">
        <div>
          {c.runs.length > 0 ? (
            <Plot figure={figure} onPointClick={onClick} label={`the confirmation runs of alert ${alert.id}`} height={320} />
          ) : (
            <p className="muted">No confirmation runs yet.</p>
          )}
          <p className="muted small">
            {c.mode === "baseline"
              ? "Each round re-ran the new version (candidate) and the old one (baseline) in turns, on the same agent."
              : "Each round re-ran the new run's configuration (candidate); the old level is the series' history before the change."}{" "}
            Dots are repetitions, dashes each run's median, the lines the medians the test compared. Click a dot to open its run.
          </p>
        </div>
        <dl className="kv facts-top" data-testid="confirmation-facts">
          <div>
            <dt>job</dt>
            <dd>
              <Link to={paths.job(c.job_id)}>job #{c.job_id}</Link> <span className="muted">({c.status})</span>
            </dd>
          </div>
          <div>
            <dt>rounds</dt>
            <dd data-testid="confirmation-rounds">
              {c.rounds} of at most {c.rounds_max}
            </dd>
          </div>
          <div>
            <dt>candidate (new) median</dt>
            <dd className="num" data-testid="confirmation-candidate" data-value={c.candidate_median ?? ""}>
              {levelWithUnit(c.candidate_median, unit)}
            </dd>
          </div>
          <div>
            <dt>{baseline}</dt>
            <dd className="num" data-testid="confirmation-baseline" data-value={c.baseline_median ?? ""}>
              {levelWithUnit(c.baseline_median, unit)}
            </dd>
          </div>
          <div>
            <dt>change</dt>
            <dd data-testid="confirmation-change" data-value={c.change_pct ?? ""}>
              {signedChangeText(c.change_pct, c.ci)}
            </dd>
          </div>
          {c.note && (
            <div>
              <dt>note</dt>
              <dd className="small">{c.note}</dd>
            </div>
          )}
        </dl>
      </div>
      {runs.length > 0 && (
        <table className="table" data-testid="confirmation-runs">
          <thead>
            <tr>
              <th>round</th>
              <th>variant</th>
              <th>run</th>
              <th className="num">median</th>
              <th className="num">repetitions</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.uuid} data-run={r.uuid} data-variant={r.variant}>
                <td>{r.round}</td>
                <td>{VARIANT_LABEL[r.variant] ?? r.variant}</td>
                <td>
                  <Link className="mono" to={paths.run(r.uuid)}>
                    {shortId(r.uuid)}
                  </Link>
                </td>
                <td className="num" data-testid="run-median" data-value={r.median ?? ""}>
                  {formatNumber(r.median, 6)} {unit}
                </td>
                <td className="num">{r.samples.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
