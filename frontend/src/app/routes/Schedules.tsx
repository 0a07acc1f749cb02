import { Link } from "react-router-dom";
import { Empty, QueryView } from "../../components/ui/States";
import { useSchedules } from "../../features/schedules/api/get-schedules";
import { SchedulesTable } from "../../features/schedules/components/SchedulesTable";
import { paths } from "../../lib/paths";

export function Schedules() {
  const schedules = useSchedules();
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Schedules</h1>
          <p className="muted">Workloads to run on enrolled agents: now, once, or on a cron. Each firing queues one job per matching agent.</p>
        </div>
        <div className="actions">
          <Link className="button" to={paths.jobs()}>
            Jobs
          </Link>
          <Link className="button primary" to={paths.newSchedule()}>
            New schedule
          </Link>
        </div>
      </div>
      <section className="card">
        <QueryView query={schedules} what="schedules">
          {(list) =>
            list.items.length === 0 ? (
              <Empty title="No schedules yet.">
                <p className="state-body">
                  Enroll a test machine on the <Link to={paths.agents()}>Agents</Link> page, then <Link to={paths.newSchedule()}>create a schedule</Link> to run
                  a workload on it.
                </p>
              </Empty>
            ) : (
              <SchedulesTable schedules={list.items} />
            )
          }
        </QueryView>
      </section>
    </div>
  );
}
