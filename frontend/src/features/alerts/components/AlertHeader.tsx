import { Link } from "react-router-dom";
import { formatPairs } from "../../../lib/format";
import type { AlertDetail } from "../api/get-alert";
import { changeSummary, changeTone, seriesTitle } from "../format";
import { paths } from "../../../lib/paths";

/** The change in a few words, the series it is in, and the ways to its history and its two runs. */
export function AlertHeader({ alert }: { alert: AlertDetail }) {
  const s = alert.series;
  const before = alert.previous_run;
  return (
    <div className="page-head">
      <div>
        <h1>
          <span className={`diff tone-text-${changeTone(alert.kind, alert.change_pct)}`}>{changeSummary(alert.kind, alert.change_pct)}</span>{" "}
          <span className="muted">in</span> {seriesTitle(s)}
        </h1>
        <p className="muted mono small">
          alert #{alert.id} · {s.target} {formatPairs(s.parameters)} {formatPairs(s.labels)}
        </p>
      </div>
      <div className="actions">
        <Link className="button" to={paths.series(s.id)}>
          Series history
        </Link>
        {before && (
          <Link className="button" to={paths.compare({ runs: `${before.uuid},${alert.change_run.uuid}` })}>
            Compare the two runs
          </Link>
        )}
      </div>
    </div>
  );
}
