import { Link } from "react-router-dom";
import { formatCount, formatPairs, formatTime } from "../../../lib/format";
import { formatParams } from "../../../lib/units";
import type { SeriesListed } from "../api/get-series";
import { paths } from "../../../lib/paths";

export function SeriesTable({ series }: { series: SeriesListed[] }) {
  return (
    <table className="table" data-testid="series-table">
      <thead>
        <tr>
          <th>workload</th>
          <th>metric</th>
          <th>agent</th>
          <th>target</th>
          <th>parameters</th>
          <th>labels</th>
          <th className="num">points</th>
          <th>last</th>
          <th className="num">open alerts</th>
        </tr>
      </thead>
      <tbody>
        {series.map((s) => (
          <tr key={s.id}>
            <td>{s.workload}</td>
            <td className="mono">
              <Link to={paths.series(s.id)}>{s.metric}</Link>
              {s.reference && (
                <span className="badge series-reference" title="published figures entered by hand: every point is a reference run">
                  reference
                </span>
              )}
            </td>
            <td>{s.agent}</td>
            <td className="mono ellipsis">{s.target}</td>
            <td className="mono small">{formatParams(s.parameters).text}</td>
            <td className="mono small">{formatPairs(s.labels)}</td>
            <td className="num">{formatCount(s.points)}</td>
            <td className="nowrap">{formatTime(s.last_at)}</td>
            <td className="num" data-testid="open-alerts">
              {s.open_alerts > 0 ? (
                <span className="badge status-open" title={`${s.open_alerts} open alert${s.open_alerts === 1 ? "" : "s"}`}>
                  {formatCount(s.open_alerts)}
                </span>
              ) : (
                ""
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
