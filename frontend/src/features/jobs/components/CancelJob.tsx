import { ConfirmButton } from "../../../components/ui/ConfirmButton";
import { WriteError } from "../../../components/ui/WriteError";
import { useCancelJob } from "../api/cancel-job";
import { isActive, type Job } from "../progress";

/** Cancel (admin, confirmed): a queued job stops at once, a running one when its agent next reports. */
export function CancelJob({ job }: { job: Pick<Job, "id" | "status" | "cancel_requested"> }) {
  const cancel = useCancelJob();
  if (!isActive(job.status)) return null;
  if (job.cancel_requested) return <span className="muted small">cancel requested: the agent stops at its next report</span>;
  return (
    <span className="cancel-job">
      <ConfirmButton
        label="Cancel job"
        confirm={job.status === "queued" ? "Really cancel" : "Really cancel (the agent stops)"}
        pending={cancel.isPending}
        onConfirm={() => cancel.mutate(job.id)}
      />
      <WriteError error={cancel.error} scope="admin" action="Cancelling a job" />
    </span>
  );
}
