import { Link, useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useSchedule } from "../../features/schedules/api/get-schedules";
import { Firings } from "../../features/schedules/components/Firings";
import { ScheduleActions } from "../../features/schedules/components/ScheduleActions";
import { ScheduleFacts } from "../../features/schedules/components/ScheduleFacts";
import { paths } from "../../lib/paths";

export function ScheduleDetail() {
  const id = Number(useParams().id);
  const schedule = useSchedule(id);
  return (
    <div className="page">
      <QueryView query={schedule} what="the schedule">
        {(s) => (
          <>
            <div className="page-head">
              <div>
                <p className="crumbs small">
                  <Link to={paths.schedules()}>Schedules</Link>
                </p>
                <h1>
                  {s.name} {s.paused && <span className="badge warn">paused</span>}
                </h1>
              </div>
              <div className="actions">
                <Link className="button" to={paths.jobs({ schedule: s.id })}>
                  Its jobs
                </Link>
                <ScheduleActions schedule={s} afterDelete={paths.schedules()} />
              </div>
            </div>
            <div className="grid-2 even">
              <section className="card">
                <h2>Schedule</h2>
                <ScheduleFacts schedule={s} />
              </section>
              <section className="card">
                <h2>Firings</h2>
                <Firings scheduleId={s.id} />
              </section>
            </div>
          </>
        )}
      </QueryView>
    </div>
  );
}
