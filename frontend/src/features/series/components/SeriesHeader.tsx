import { Link } from "react-router-dom";
import { formatPairs } from "../../../lib/format";
import { formatParams } from "../../../lib/units";
import { seriesExploreLink } from "../../runs";
import type { SeriesPoints } from "../api/get-series-points";

/** The series' name and dimensions, the every-sample switch and the way to Explore. */
export function SeriesHeader({ series: s, samples, onSamples }: { series: SeriesPoints["series"]; samples: boolean; onSamples: (samples: boolean) => void }) {
  return (
    <div className="page-head">
      <div>
        <h1>
          {s.metric}{" "}
          <span className="muted">
            · {s.workload} on {s.agent}
          </span>
        </h1>
        <p className="muted mono small">
          {s.target} {formatParams(s.parameters).text} {formatPairs(s.labels)}
        </p>
      </div>
      <div className="actions">
        <label className="check">
          <input type="checkbox" checked={samples} onChange={(e) => onSamples(e.target.checked)} /> every sample
        </label>
        <Link className="button" to={seriesExploreLink({ workload: s.workload, agent: s.agent, target: s.target, parameters: s.parameters }, s.metric)}>
          Open in Explore
        </Link>
      </div>
    </div>
  );
}
