import { Link } from "react-router-dom";
import { ProgressBar } from "../../../components/ui/ProgressBar";
import { formatPairs, formatTime, timeAgo } from "../../../lib/format";
import { useNow } from "../../../lib/use-now";
import { JobStatusBadge, toneOf } from "../../jobs";
import type { Agent } from "../api/get-agents";
import { agentState, heartbeatText, lastSeen } from "../liveness";
import { RevokeAgent } from "./RevokeAgent";
import { paths } from "../../../lib/paths";

function StateBadge({ agent }: { agent: Agent }) {
  const state = agentState(agent);
  return (
    <span className={`badge agent-${state.replace(" ", "-")}`} data-state={state}>
      {state === "online" ? "● online" : state}
    </span>
  );
}

function CurrentJob({ agent }: { agent: Agent }) {
  const job = agent.current_job;
  if (!job) return <span className="muted">–</span>;
  return (
    <div className="current-job">
      <Link to={paths.job(job.id)}>#{job.id}</Link> <JobStatusBadge status={job.status} />
      <ProgressBar percent={job.status === "leased" ? 0 : job.percent} tone={toneOf(job.status)} label={`job ${job.id}`} />
    </div>
  );
}

export function AgentsTable({ agents, compact = false }: { agents: Agent[]; compact?: boolean }) {
  const now = useNow(1000);
  return (
    <table className="table" data-testid="agents-table">
      <thead>
        <tr>
          <th>agent</th>
          <th>state</th>
          {!compact && <th>heartbeat</th>}
          {!compact && <th>current job</th>}
          <th>last seen</th>
          <th className="num">runs</th>
          {!compact && <th>labels</th>}
          {!compact && <th>agent version</th>}
          {!compact && <th />}
        </tr>
      </thead>
      <tbody>
        {agents.map((a) => (
          <tr key={a.name} data-agent={a.name} className={a.revoked ? "revoked" : undefined}>
            <td>
              <Link to={paths.runs({ agent: a.name })}>{a.name}</Link>
            </td>
            <td>
              <StateBadge agent={a} />
            </td>
            {!compact && (
              <td className="small" title={formatTime(a.heartbeat_at)}>
                {heartbeatText(a, now)}
              </td>
            )}
            {!compact && (
              <td className="progress-col">
                <CurrentJob agent={a} />
              </td>
            )}
            <td title={formatTime(lastSeen(a))}>{timeAgo(lastSeen(a), now)}</td>
            <td className="num">{a.runs}</td>
            {!compact && <td className="mono small">{formatPairs(a.labels) || "–"}</td>}
            {!compact && <td className="mono">{a.version ?? "–"}</td>}
            {!compact && (
              <td className="nowrap">
                {a.enrolled && !a.revoked && (
                  <span className="actions">
                    <Link className="button small" to={paths.jobs({ agent: a.name })}>
                      Jobs
                    </Link>
                    <RevokeAgent name={a.name} />
                  </span>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
