import { Link, useNavigate } from "react-router-dom";
import { ConfirmButton } from "../../../components/ui/ConfirmButton";
import { WriteError } from "../../../components/ui/WriteError";
import type { Schedule } from "../api/get-schedules";
import { useDeleteSchedule, usePauseSchedule } from "../api/write-schedule";
import { paths } from "../../../lib/paths";

/** Edit, pause or resume, delete (confirmed; its queued jobs are cancelled, its history kept). */
export function ScheduleActions({ schedule, afterDelete }: { schedule: Pick<Schedule, "id" | "name" | "paused" | "next_fire_at">; afterDelete?: string }) {
  const pause = usePauseSchedule();
  const remove = useDeleteSchedule();
  const navigate = useNavigate();
  return (
    <span className="actions">
      <Link className="button small" to={paths.editSchedule(schedule.id)}>
        Edit
      </Link>
      {/* a one-off that has fired has nothing left to pause */}
      {schedule.next_fire_at !== null && (
        <button type="button" className="button small" disabled={pause.isPending} onClick={() => pause.mutate({ id: schedule.id, paused: !schedule.paused })}>
          {schedule.paused ? "Resume" : "Pause"}
        </button>
      )}
      <ConfirmButton
        label="Delete"
        confirm={`Really delete “${schedule.name}”`}
        pending={remove.isPending}
        onConfirm={() => remove.mutate(schedule.id, { onSuccess: () => afterDelete && navigate(afterDelete) })}
      />
      <WriteError error={pause.error} scope="admin" action={schedule.paused ? "Resuming a schedule" : "Pausing a schedule"} />
      <WriteError error={remove.error} scope="admin" action="Deleting a schedule" />
    </span>
  );
}
