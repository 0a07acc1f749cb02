import { ProgressBar } from "../../../components/ui/ProgressBar";
import { barPercent, progressLine, readProgress, statusClass, type Job } from "../progress";

/** The status as a badge; a held job asked to stop says so. */
export function JobStatusBadge({ status, cancelRequested = false }: { status: string; cancelRequested?: boolean }) {
  return (
    <span className={statusClass(status)} data-status={status}>
      {status}
      {cancelRequested && ["leased", "running"].includes(status) ? " · cancelling" : ""}
    </span>
  );
}

export function toneOf(status: string): "active" | "done" | "failed" | "idle" {
  if (status === "succeeded") return "done";
  if (status === "failed" || status === "expired") return "failed";
  if (status === "cancelled" || status === "queued") return "idle";
  return "active";
}

/** The bar, then what the agent is doing: phase, the sweep's current point, runs done/total. */
export function JobProgress({ job }: { job: Pick<Job, "status" | "progress" | "points" | "runs" | "started_at" | "leased_by"> }) {
  const percent = barPercent(job.status, readProgress(job.progress));
  const text = progressLine(job);
  return (
    <div className="job-progress" data-testid="job-progress">
      <ProgressBar percent={job.status === "queued" || job.status === "leased" ? 0 : percent} tone={toneOf(job.status)} label={`job ${job.status}`} />
      {text && <div className="small muted progress-text">{text}</div>}
    </div>
  );
}
