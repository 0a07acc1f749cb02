import { useNavigate, useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { userTimeZone } from "../../lib/time";
import { useSchedule } from "../../features/schedules/api/get-schedules";
import { ScheduleFormView } from "../../features/schedules/components/ScheduleFormView";
import { emptyForm, formFromSchedule } from "../../features/schedules/form";
import { paths } from "../../lib/paths";

export function ScheduleNew() {
  const navigate = useNavigate();
  return (
    <div className="page">
      <div className="page-head">
        <h1>New schedule</h1>
      </div>
      <ScheduleFormView
        initial={emptyForm(userTimeZone())}
        id={null}
        onSaved={(s) => navigate(paths.schedule(s.id))}
        onCancel={() => navigate(paths.schedules())}
      />
    </div>
  );
}

export function ScheduleEdit() {
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const schedule = useSchedule(id);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Edit schedule {schedule.data ? `“${schedule.data.name}”` : `#${id}`}</h1>
      </div>
      <QueryView query={schedule} what="the schedule">
        {(s) => (
          <ScheduleFormView
            key={s.id}
            initial={formFromSchedule(s)}
            id={s.id}
            onSaved={() => navigate(paths.schedule(s.id))}
            onCancel={() => navigate(paths.schedule(s.id))}
          />
        )}
      </QueryView>
    </div>
  );
}
