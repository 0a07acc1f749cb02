import { Link } from "react-router-dom";
import { formatInZone, relativeTime, userTimeZone } from "../../../lib/time";
import type { Job } from "../progress";
import { JobProgress, JobStatusBadge } from "./JobStatus";
import { paths } from "../../../lib/paths";

function workload(job: Job): string {
  return typeof job.spec.workload === "string" ? job.spec.workload : "–";
}

export function JobsTable({ jobs }: { jobs: Job[] }) {
  const zone = userTimeZone();
  return (
    <table className="table" data-testid="jobs-table">
      <thead>
        <tr>
          <th>job</th>
          <th>status</th>
          <th>workload</th>
          <th>agent</th>
          <th>schedule</th>
          <th className="progress-col">progress</th>
          <th>created ({zone})</th>
          <th className="num">runs</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((j) => (
          <tr key={j.id} data-job={j.id}>
            <td>
              <Link to={paths.job(j.id)}>#{j.id}</Link>
            </td>
            <td>
              <JobStatusBadge status={j.status} cancelRequested={j.cancel_requested} />
            </td>
            <td className="mono">{workload(j)}</td>
            <td>
              {j.agent}
              {j.leased_by && j.leased_by !== j.agent && <span className="muted small"> (run by {j.leased_by})</span>}
            </td>
            <td>
              {j.schedule_id ? <Link to={paths.schedule(j.schedule_id)}>{j.schedule_name ?? `#${j.schedule_id}`}</Link> : <span className="muted">–</span>}
            </td>
            <td className="progress-col">
              <JobProgress job={j} />
            </td>
            <td className="nowrap" title={formatInZone(j.created_at, zone)}>
              {relativeTime(j.created_at)}
            </td>
            <td className="num">{j.runs.length > 0 ? j.runs.length : "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
