import { Link } from "react-router-dom";
import { useReports } from "../../reports";
import { useFirstRunAgent, useFirstRunJobs } from "../api/get-first-run";
import { firstRunState, studiesText } from "../progress";
import { paths } from "../../../lib/paths";

/** The Overview's card about `make up`'s first run: its progress, then the studies' reports. */
export function FirstRunCard() {
  const agent = useFirstRunAgent();
  const name = agent.data?.name ?? null;
  const jobs = useFirstRunJobs(name);
  const reports = useReports();
  const state = firstRunState(
    name,
    jobs.data?.items ?? [],
    (reports.data?.items ?? []).map((r) => r.slug),
  );
  if (state.state === "none") return null;
  const jobsLink = paths.jobs({ agent: state.agent });
  if (state.state === "running") {
    const pct = Math.round((100 * state.done) / state.total);
    return (
      <section className="card" data-testid="first-run-card">
        <div className="card-head">
          <h2>
            Running {studiesText(state.studies)} on this machine (quick): {state.done} of {state.total} jobs done
          </h2>
          <Link to={jobsLink}>jobs →</Link>
        </div>
        <div className="progress">
          <div className="progress-track">
            <div className="progress-fill" style={{ width: `${pct}%` }} />
          </div>
          <span className="progress-pct">{pct} %</span>
        </div>
        <p className="muted">
          Real measurements of this machine by the local agent {state.agent}, labelled firstrun=true
          {state.failed > 0 ? `; ${state.failed} job(s) did not succeed` : ""}. The reports open here when they are done.
        </p>
      </section>
    );
  }
  return (
    <section className="card" data-testid="first-run-card">
      <div className="card-head">
        <h2>The studies run on this machine (quick)</h2>
        <Link to={jobsLink}>
          {state.succeeded} of {state.total} jobs succeeded →
        </Link>
      </div>
      <ul>
        {state.studies.map((s) => (
          <li key={s.study}>
            {s.exists ? <Link to={paths.report(s.slug)}>{s.study}</Link> : <span>{s.study}</span>} — {s.succeeded} of {s.total} {s.total === 1 ? "job" : "jobs"}{" "}
            succeeded
            {s.exists ? null : <span className="muted"> — the report will appear when the server has its defaults</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
