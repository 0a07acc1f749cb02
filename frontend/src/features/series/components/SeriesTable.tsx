import { Link } from "react-router-dom";
import { formatCount, formatPairs, formatTime } from "../../../lib/format";
import type { Series } from "../api/get-series";

export function SeriesTable({ series }: { series: Series[] }) {
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
        </tr>
      </thead>
      <tbody>
        {series.map((s) => (
          <tr key={s.id}>
            <td>{s.workload}</td>
            <td className="mono">
              <Link to={`/series/${s.id}`}>{s.metric}</Link>
            </td>
            <td>{s.agent}</td>
            <td className="mono ellipsis">{s.target}</td>
            <td className="mono small">
              {formatPairs(s.parameters)}
            </td>
            <td className="mono small">
              {formatPairs(s.labels)}
            </td>
            <td className="num">{formatCount(s.points)}</td>
            <td className="nowrap">{formatTime(s.last_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
