import { Link } from "react-router-dom";
import { formatPairs, formatTime, timeAgo } from "../../../lib/format";
import type { Agent } from "../api/get-agents";

export function AgentsTable({ agents, compact = false }: { agents: Agent[]; compact?: boolean }) {
  return (
    <table className="table">
      <thead>
        <tr>
          <th>agent</th>
          <th>last seen</th>
          <th className="num">runs</th>
          {!compact && <th>agent version</th>}
          {!compact && <th>labels</th>}
        </tr>
      </thead>
      <tbody>
        {agents.map((a) => (
          <tr key={a.name}>
            <td>
              <Link to={`/runs?agent=${encodeURIComponent(a.name)}`}>{a.name}</Link>
            </td>
            <td title={formatTime(a.last_seen_at)}>{timeAgo(a.last_seen_at)}</td>
            <td className="num">{a.runs}</td>
            {!compact && <td className="mono">{a.version ?? "–"}</td>}
            {!compact && (
              <td className="mono small">
                {formatPairs(a.labels) || "–"}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
