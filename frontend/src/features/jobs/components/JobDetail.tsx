import { useEffect, useRef } from "react";
import { Link } from "react-router-dom";
import { useCatalog } from "../../explore";
import { formatPairs } from "../../../lib/format";
import { formatInZone, relativeTime, userTimeZone } from "../../../lib/time";
import { jobCompareLink, jobExploreLink, COMPARE_MAX } from "../links";
import { isActive, type Job } from "../progress";
import { CancelJob } from "./CancelJob";
import { JobLog } from "./JobLog";
import { JobProgress, JobStatusBadge } from "./JobStatus";
import { paths } from "../../../lib/paths";

function When({ iso, zone }: { iso: string | null; zone: string }) {
  if (!iso) return <>–</>;
  return (
    <>
      {formatInZone(iso, zone)} <span className="muted small">({relativeTime(iso)})</span>
    </>
  );
}

function spec(job: Job): { workload: string; targets: string; params: string; repetitions: string } {
  const s = job.spec as { workload?: unknown; targets?: unknown; params?: unknown; repetitions?: unknown };
  const params = s.params && typeof s.params === "object" ? (s.params as Record<string, unknown>) : {};
  return {
    workload: String(s.workload ?? "–"),
    targets: Array.isArray(s.targets) ? s.targets.join(", ") : "–",
    params: formatPairs(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : v]))) || "–",
    repetitions: String(s.repetitions ?? "–"),
  };
}

export function JobHeader({ job }: { job: Job }) {
  return (
    <div className="page-head">
      <div>
        <p className="crumbs small">
          <Link to={paths.jobs()}>Jobs</Link>
          {job.schedule_id && (
            <>
              {" · schedule "}
              <Link to={paths.schedule(job.schedule_id)}>{job.schedule_name ?? `#${job.schedule_id}`}</Link>
            </>
          )}
        </p>
        <h1>
          Job #{job.id} <JobStatusBadge status={job.status} cancelRequested={job.cancel_requested} />
        </h1>
        <p className="muted">
          {spec(job).workload} on {job.agent}
          {isActive(job.status) ? " · updates every 2 s" : ""}
        </p>
      </div>
      <div className="actions">
        <CancelJob job={job} />
      </div>
    </div>
  );
}

export function JobFacts({ job }: { job: Job }) {
  const zone = userTimeZone();
  const s = spec(job);
  const held = job.status === "leased" || job.status === "running";
  return (
    <dl className="kv">
      <div>
        <dt>workload</dt>
        <dd className="mono">{s.workload}</dd>
      </div>
      <div>
        <dt>targets</dt>
        <dd className="mono">{s.targets}</dd>
      </div>
      <div>
        <dt>parameters</dt>
        <dd className="mono">{s.params}</dd>
      </div>
      <div>
        <dt>runs per agent</dt>
        <dd>
          {job.points} × {s.repetitions} repetitions
        </dd>
      </div>
      <div>
        <dt>made for</dt>
        <dd>{job.agent}</dd>
      </div>
      <div>
        <dt>run by</dt>
        <dd>{job.leased_by ?? "–"}</dd>
      </div>
      <div>
        <dt>attempts</dt>
        <dd>
          {job.attempts} of {job.max_attempts}
        </dd>
      </div>
      <div>
        <dt>lease</dt>
        <dd>
          {held && job.lease_until ? (
            <>
              until <When iso={job.lease_until} zone={zone} />
            </>
          ) : (
            "–"
          )}
        </dd>
      </div>
      <div>
        <dt>created ({zone})</dt>
        <dd>
          <When iso={job.created_at} zone={zone} />
        </dd>
      </div>
      <div>
        <dt>started</dt>
        <dd>
          <When iso={job.started_at} zone={zone} />
        </dd>
      </div>
      <div>
        <dt>finished</dt>
        <dd>
          <When iso={job.finished_at} zone={zone} />
        </dd>
      </div>
      {job.status === "queued" && job.expires_at && (
        <div>
          <dt>expires</dt>
          <dd>
            <When iso={job.expires_at} zone={zone} />
          </dd>
        </div>
      )}
    </dl>
  );
}

export function JobLive({ job }: { job: Job }) {
  return (
    <>
      <JobProgress job={job} />
      {job.error && (
        <div className="state state-error" role="alert" data-testid="job-error">
          <strong>Error.</strong> {job.error}
        </div>
      )}
      {/* the server keeps a job's last 500 lines */}
      <h3>Log{job.log_tail.length >= 500 ? " (the last 500 lines)" : ""}</h3>
      <JobLog lines={job.log_tail} final={!isActive(job.status)} />
    </>
  );
}

/** The runs the job stored, with links to see them in Explore and Compare. */
export function JobRuns({ job }: { job: Job }) {
  if (job.runs.length === 0) {
    return <p className="muted">{isActive(job.status) ? "Runs appear here as the job stores them." : "This job stored no runs."}</p>;
  }
  const explore = jobExploreLink(job);
  const compare = jobCompareLink(job.runs);
  return <JobRunLinks job={job} explore={explore} compare={compare} />;
}

function JobRunLinks({ job, explore, compare }: { job: Job; explore: string | null; compare: string | null }) {
  const workload = spec(job).workload;
  const catalog = useCatalog(workload);
  const metrics = catalog.data?.metrics ?? [];
  // A catalog read before this job stored its runs may not know its workload yet: ask once more.
  const asked = useRef(false);
  const { data, isFetching, refetch } = catalog;
  useEffect(() => {
    if (data && !isFetching && !data.workloads.includes(workload) && !asked.current) {
      asked.current = true;
      void refetch();
    }
  }, [data, isFetching, workload, refetch]);
  return (
    <>
      <div className="actions" data-testid="job-run-links">
        {explore && metrics.length === 0 && (
          <Link className="button" to={explore}>
            Explore these runs
          </Link>
        )}
        {metrics.slice(0, 6).map((m) => (
          <Link key={m.name} className="button" to={jobExploreLink(job, m.name) ?? ""}>
            Explore {m.name}
          </Link>
        ))}
        {compare && (
          <Link className="button" to={compare}>
            Compare {job.runs.length > COMPARE_MAX ? `the first ${COMPARE_MAX}` : `the ${job.runs.length}`} runs
          </Link>
        )}
      </div>
      <p className="muted small">
        Explore shows {spec(job).workload} on {job.leased_by ?? job.agent} over the time this job ran
        {metrics.length > 6 ? `; ${metrics.length - 6} more metrics are in Explore's metric picker` : ""}.
      </p>
      <ul className="run-list" data-testid="job-runs">
        {job.runs.map((uuid) => (
          <li key={uuid}>
            <Link to={paths.run(uuid)} className="mono">
              {uuid}
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
