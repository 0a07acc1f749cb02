import { Link } from "react-router-dom";
import { Empty, QueryView } from "../../components/ui/States";
import { useSchedules } from "../../features/schedules/api/get-schedules";
import { SchedulesTable } from "../../features/schedules/components/SchedulesTable";

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
          <Link className="button" to="/jobs">
            Jobs
          </Link>
          <Link className="button primary" to="/schedules/new">
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
                  Enroll a test machine on the <Link to="/agents">Agents</Link> page, then <Link to="/schedules/new">create a schedule</Link> to run a workload
                  on it.
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
