import { Link } from "react-router-dom";
import { useRuns } from "../../features/runs/api/get-runs";
import { RunsTable } from "../../features/runs/components/RunsTable";
import { useAgents } from "../../features/agents/api/get-agents";
import { AgentsTable } from "../../features/agents/components/AgentsTable";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { Empty, ErrorState, QueryView } from "../../components/ui/States";
import { ApiError } from "../../api/client";
import { exploreSearch, parseExploreState } from "../../features/explore/url-state";
import { OPEN_ALERTS, useAlerts } from "../../features/alerts/api/get-alerts";
import { causeSummary, changeTone, seriesTitle } from "../../features/alerts/format";
import { formatPercent, timeAgo } from "../../lib/format";

function OpenAlerts() {
  const alerts = useAlerts(OPEN_ALERTS);
  return (
    <section className="card" data-testid="open-alerts-panel">
      <div className="card-head">
        <h2>
          Open alerts{" "}
          {alerts.data && <span className={alerts.data.counts.open ? "count-pill hot" : "count-pill"}>{alerts.data.counts.open ?? 0}</span>}
        </h2>
        <Link to="/alerts">all alerts →</Link>
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
                  <Link to={`/alerts/${a.id}`}>
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

export function Overview() {
  const runs = useRuns({ limit: 15 });
  const agents = useAgents();
  const workloads = [...new Set((runs.data?.items ?? []).map((r) => r.workload))];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Overview</h1>
        <div className="actions">
          <Link className="button primary" to="/explore">
            Explore results
          </Link>
          <Link className="button" to="/compare">
            Compare runs
          </Link>
        </div>
      </div>
      {workloads.length > 0 && (
        <p className="quick">
          Plot a workload:{" "}
          {workloads.map((w) => (
            <Link key={w} className="chip" to={`/explore?${exploreSearch({ ...parseExploreState(new URLSearchParams()), workload: w })}`}>
              {w}
            </Link>
          ))}
        </p>
      )}
      {runs.error instanceof ApiError && runs.error.needsToken ? (
        <ErrorState error={runs.error} what="this PerfAtlas server" />
      ) : (
      <div className="grid-2">
        <section className="card">
          <div className="card-head">
            <h2>Recent runs</h2>
            <Link to="/runs">all runs →</Link>
          </div>
          <QueryView query={runs} what="recent runs">
            {(page) =>
              page.items.length === 0 ? (
                <Empty title="No runs yet.">
                  <AgentHelp />
                </Empty>
              ) : (
                <RunsTable runs={page.items} compact />
              )
            }
          </QueryView>
        </section>
        <div className="stack">
        <OpenAlerts />
        <section className="card">
          <div className="card-head">
            <h2>Agents</h2>
            <Link to="/agents">all agents →</Link>
          </div>
          <QueryView query={agents} what="agents">
            {(list) => (list.length === 0 ? <Empty title="No agent has uploaded a run yet." /> : <AgentsTable agents={list} compact />)}
          </QueryView>
        </section>
        </div>
      </div>
      )}
    </div>
  );
}
